"""Converters for the element-wise unary math operators: each becomes the IR op of the same meaning, the value
keeping its layout (NHWC stays NHWC). ONNX HardSwish and Elu reach us decomposed by the importer (add, clip,
multiply; exp, subtract, relu) and become those element-wise ops; Softplus and HardSigmoid decompose into a
maximum and a [0, 1] clip, which convert_binary_math.py takes."""

from __future__ import annotations

from .context import Value
from .converters import converts

_SAME = {"abs": "abs", "negative": "negative", "exp": "exp", "log": "log", "sqrt": "sqrt", "rsqrt": "rsqrt",
         "floor": "floor", "ceil": "ceil", "round": "round", "erf": "erf"}


def _unary(op: str, **attrs):
    def convert(ctx, _attrs, args, out, hint):
        x = args[0]
        if not isinstance(x, Value):
            ctx.fail(f"{op} of a constant was not folded")
        t = ctx.type_of(x.name)
        return Value(ctx.node(op, [x.name], t, hint, **attrs), x.nhwc)

    return convert


for _relax, _op in _SAME.items():
    converts(_relax)(_unary(_op))
converts("nn.gelu")(_unary("nn.gelu", approximate=False))
converts("nn.gelu_tanh")(_unary("nn.gelu", approximate=True))
