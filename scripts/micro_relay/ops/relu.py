"""nn.relu: TFLite RELU, out = max(x, 0).

Integer semantics (M/activations_common.cc ReluPrepare/CalculateReluOpData, M/activations.cc ReluQuantized):
a full requantization from the input's to the output's quantization, then the clamp,
    out = clamp(MBQM32(q - in_zp, M, s) + out_zp, max(type_min, out_zp), type_max)
with M, s = QuantizeMultiplier(in_s / out_s) in double. int16 needs zero points of 0 (TFLite Micro checks).
A relu right after an op with a fused-activation attribute, with unchanged quantization, is folded into
that op by passes/fuse_activation.py; what reaches this kernel is the standalone case.
float32: x < 0 ? 0 : x (NaN stays NaN).
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32
from ..arith.multiplier import quantize_multiplier
from ..ir.registry import OpDef, op_where, register
from ..ir.types import DType
from ._common import fail, kernel_suffix, out_type, types
from ._elementwise import same_dtype, unary_infer


@register
class Relu(OpDef):
    name = "nn.relu"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    inplace = True

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        dtype = same_dtype(graph, node, (DType.INT8, DType.INT16, DType.FLOAT32))
        params = {"kind": kernel_suffix(dtype), "size": out_type(graph, node).size}
        if dtype.is_float:
            return params
        q_in, q_out = types(graph, node)[0].quant, out_type(graph, node).quant
        if dtype == DType.INT16 and (q_in.zero_point, q_out.zero_point) != (0, 0):
            fail(graph, node, f"int16 relu needs zero points of 0, got {q_in.zero_point} and {q_out.zero_point}")
        mult, shift = quantize_multiplier(q_in.scale / q_out.scale, where=op_where(graph, node))
        params.update(in_zp=q_in.zero_point, out_zp=q_out.zero_point, mult=mult, shift=shift,
                      act_min=max(dtype.min, q_out.zero_point), act_max=dtype.max)
        return params

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        (x,) = inputs
        if out.dtype.is_float:
            return [np.where(x < 0, np.float32(0), x).astype(np.float32)]
        raw = mbqm32(x.astype(np.int64) - p["in_zp"], p["mult"], p["shift"]) + p["out_zp"]
        return [np.clip(raw, p["act_min"], p["act_max"]).astype(out.dtype.numpy)]
