"""Element-wise builtins: ADD, SUB, MUL, the activations, LEAKY_RELU and SOFTMAX."""

from __future__ import annotations

import tflite
from tflite.BuiltinOperator import BuiltinOperator as B

from .context import converts, make_node


def _binary(op_name, options_cls):
    def convert(ctx, op, inputs, outputs):
        ctx.need_inputs(inputs, 2)
        o = ctx.options(op, options_cls)
        activation = ctx.activation(o.FusedActivationFunction()) if o is not None else "none"
        return [make_node(ctx, op_name, inputs, outputs, activation=activation)]

    return convert


converts(B.ADD)(_binary("add", tflite.AddOptions))
converts(B.SUB)(_binary("subtract", tflite.SubOptions))
converts(B.MUL)(_binary("multiply", tflite.MulOptions))




def _unary(op_name):
    def convert(ctx, op, inputs, outputs):
        return [make_node(ctx, op_name, inputs[:1], outputs)]

    return convert


converts(B.LOGISTIC)(_unary("sigmoid"))
converts(B.TANH)(_unary("tanh"))
converts(B.RELU)(_unary("nn.relu"))
converts(B.RELU6)(_unary("nn.relu6"))


@converts(B.LEAKY_RELU)
def leaky_relu(ctx, op, inputs, outputs):
    o = ctx.options(op, tflite.LeakyReluOptions)
    return [make_node(ctx, "nn.leaky_relu", inputs[:1], outputs, alpha=float(o.Alpha()) if o is not None else 0.2)]




@converts(B.SOFTMAX)
def softmax(ctx, op, inputs, outputs):
    o = ctx.options(op, tflite.SoftmaxOptions)
    return [make_node(ctx, "nn.softmax", inputs[:1], outputs, beta=float(o.Beta()) if o is not None else 1.0)]
