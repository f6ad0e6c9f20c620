"""nn.conv2d_transpose on the portable kernel (crt/src/mr_conv2d_transpose.c): TFLite Micro's scatter into a
zeroed accumulator in arena scratch, then requantization of the output window."""

from __future__ import annotations

import numpy as np

from ...ir.types import DType
from ...ops._conv_common import Geometry
from ..base import Kernel, KernelPlan
from ..registry import kernel
from ._conv_call import emit_call, function_name

SOURCES = ("conv2d_transpose",)


@kernel
class PortableConv2DTranspose(Kernel):
    op = "nn.conv2d_transpose"
    backend = "portable"
    sources = SOURCES

    def plan(self, target, graph, node, p, options):
        """Scratch: the accumulator, int32 per output value for int8, int64 for int16 (float needs none)."""
        g: Geometry = p["geometry"]
        per_value = {"s8": 4, "s16": 8}.get(p["kind"], 0)
        return KernelPlan(scratch_bytes=g.batches * g.out_h * g.out_w * g.out_c * per_value, sources=SOURCES)

    def emit(self, ctx, node, p, plan):
        bias = node.inputs[2] if len(node.inputs) > 2 else ""
        bias_expr = None
        if bias and ctx.graph.type_of(bias).dtype == DType.INT16:  # widened once here, not on every call
            bias_expr = ctx.const_array(ctx.graph.constant(bias).astype(np.int64), "int64_t", "biases")
        return emit_call(ctx, node, p, function_name("mr_conv2d_transpose", p), bias_expr,
                         scratch_arg="planned" if p["kind"] != "f32" else None)
