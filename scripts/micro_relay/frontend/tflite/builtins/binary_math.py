"""Binary math builtins: DIV, MAXIMUM, MINIMUM, POW, SQUARED_DIFFERENCE, FLOOR_DIV, FLOOR_MOD, the comparisons,
LOGICAL_AND / OR / NOT, SELECT and SELECT_V2, PRELU and BATCH_MATMUL.

Types and quantization are checked by the ops' prepare (ops/_binary.py and friends); here only the options
and the operand counts are read. SELECT (v1) takes a condition of x's shape or, for x of rank > 1, a vector
choosing whole rows: that vector is reshaped to [n, 1, ...] so the op's broadcasting does the rest.
"""

from __future__ import annotations

import tflite
from tflite.BuiltinOperator import BuiltinOperator as B

from ....ir.graph import Tensor
from ....ir.types import TensorType
from .context import converts, make_node

_BINARY = {B.MAXIMUM: "maximum", B.MINIMUM: "minimum", B.POW: "power", B.SQUARED_DIFFERENCE: "squared_difference",
           B.FLOOR_DIV: "floor_divide", B.FLOOR_MOD: "floor_mod", B.EQUAL: "equal", B.NOT_EQUAL: "not_equal",
           B.LESS: "less", B.LESS_EQUAL: "less_equal", B.GREATER: "greater", B.GREATER_EQUAL: "greater_equal",
           B.LOGICAL_AND: "logical_and", B.LOGICAL_OR: "logical_or", B.PRELU: "nn.prelu"}


def _binary(op_name):
    def convert(ctx, op, inputs, outputs):
        ctx.need_inputs(inputs, 2)
        ctx.shape(inputs[0]), ctx.shape(inputs[1])
        return [make_node(ctx, op_name, inputs, outputs)]

    return convert


for _code, _name in _BINARY.items():
    converts(_code)(_binary(_name))


@converts(B.DIV)
def divide(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    o = ctx.options(op, tflite.DivOptions)
    activation = ctx.activation(o.FusedActivationFunction()) if o is not None else "none"
    return [make_node(ctx, "divide", inputs, outputs, activation=activation)]


@converts(B.LOGICAL_NOT)
def logical_not(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 1)
    return [make_node(ctx, "logical_not", inputs, outputs)]


@converts(B.SELECT_V2)
def select_v2(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 3)
    return [make_node(ctx, "where", inputs, outputs)]


@converts(B.SELECT)
def select(ctx, op, inputs, outputs):
    """SELECT's condition has x's shape, or is a vector over x's first axis (rank > 1)."""
    ctx.need_inputs(inputs, 3)
    cond, x, y = inputs
    cond_shape, x_shape, y_shape = ctx.shape(cond), ctx.shape(x), ctx.shape(y)
    if x_shape != y_shape:
        ctx.fail(f"SELECT needs x and y of one shape, got {list(x_shape)} and {list(y_shape)}")
    if cond_shape == x_shape or len(x_shape) <= 1:
        return [make_node(ctx, "where", inputs, outputs)]
    if cond_shape != x_shape[:1]:
        ctx.fail(f"SELECT condition {list(cond_shape)} is neither x's shape {list(x_shape)} nor [{x_shape[0]}]")
    rows = f"{cond}_rows_{ctx.op_index}"
    shape = (x_shape[0],) + (1,) * (len(x_shape) - 1)
    ctx.tensors[rows] = Tensor(rows, TensorType(shape, ctx.tensors[cond].type.dtype))
    return [make_node(ctx, "reshape", [cond], [rows], newshape=shape),
            make_node(ctx, "where", [rows, x, y], outputs)]


@converts(B.BATCH_MATMUL)
def batch_matmul(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    o = ctx.options(op, tflite.BatchMatMulOptions)
    adj_x, adj_y = (bool(o.AdjX()), bool(o.AdjY())) if o is not None else (False, False)
    if o is not None and o.AsymmetricQuantizeInputs():
        ctx.fail("BATCH_MATMUL with asymmetric_quantize_inputs (a hybrid model) is not supported")
    return [make_node(ctx, "nn.batch_matmul", inputs, outputs, adj_x=adj_x, adj_y=adj_y)]
