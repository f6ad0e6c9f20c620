"""Unary math builtins: ABS, NEG, EXP, LOG, SQRT, RSQRT, SQUARE, FLOOR, CEIL, ROUND, HARD_SWISH, ELU, GELU.

Each is one input, one output of the same type; which types run (and which quantization) is the op's
prepare's to refuse (ops/_unary.py). GELU's approximate flag comes from GeluOptions (absent: exact erf).
"""

from __future__ import annotations

import tflite
from tflite.BuiltinOperator import BuiltinOperator as B

from .context import converts, make_node

_SIMPLE = {B.ABS: "abs", B.NEG: "negative", B.EXP: "exp", B.LOG: "log", B.SQRT: "sqrt", B.RSQRT: "rsqrt",
           B.SQUARE: "square", B.FLOOR: "floor", B.CEIL: "ceil", B.ROUND: "round", B.HARD_SWISH: "nn.hard_swish",
           B.ELU: "nn.elu"}


def _one_in_one_out(ctx, inputs, outputs):
    ctx.need_inputs(inputs, 1)
    if len(outputs) != 1:
        ctx.fail(f"expected 1 output, got {len(outputs)}")


def _unary(op_name):
    def convert(ctx, op, inputs, outputs):
        _one_in_one_out(ctx, inputs, outputs)
        return [make_node(ctx, op_name, inputs, outputs)]

    return convert


for _code, _name in _SIMPLE.items():
    converts(_code)(_unary(_name))


@converts(B.GELU)
def gelu(ctx, op, inputs, outputs):
    _one_in_one_out(ctx, inputs, outputs)
    o = ctx.options(op, tflite.GeluOptions)
    return [make_node(ctx, "nn.gelu", inputs, outputs, approximate=bool(o.Approximate()) if o is not None else False)]
