"""AVERAGE_POOL_2D and MAX_POOL_2D."""

from __future__ import annotations

import tflite
from tflite.BuiltinOperator import BuiltinOperator as B

from .context import converts, make_node
from .padding import explicit_pads


def _pool(op_name):
    def convert(ctx, op, inputs, outputs):
        ctx.need_inputs(inputs, 1)
        o = ctx.options(op, tflite.Pool2DOptions, required=True)
        data = ctx.rank(inputs[0], 4, "pooling input")
        ctx.rank(outputs[0], 4, "pooling output")
        size, strides = (o.FilterHeight(), o.FilterWidth()), (o.StrideH(), o.StrideW())
        pads = explicit_pads(ctx, o.Padding(), data, ctx.shape(outputs[0]), *size, *strides)
        return [make_node(ctx, op_name, inputs, outputs, pool_size=size, strides=strides, padding=pads,
                      activation=ctx.activation(o.FusedActivationFunction()))]

    return convert


converts(B.AVERAGE_POOL_2D)(_pool("nn.avg_pool2d"))
converts(B.MAX_POOL_2D)(_pool("nn.max_pool2d"))
