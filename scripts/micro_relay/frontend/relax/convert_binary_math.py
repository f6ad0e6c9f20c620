"""Element-wise binary math, comparisons, where, PReLU and any clip, onto the IR ops of the same meaning.

They broadcast as add does, so they keep an NHWC value NHWC as the converters of convert_tensor do (constant
operands broadcast to the rank and transposed now). Comparisons and logical ops give bool. A clip that is not
relu or relu6 is a maximum with its lower bound then a minimum with its upper one (either left out when it
is infinite): what the importers' own decompositions compute.
"""

from __future__ import annotations

import numpy as np

from ...ir.types import DType, TensorType
from .context import DTYPES, QConst, Value, channels_last
from .convert_tensor import _shape_for, _unary, elementwise_inputs
from .converters import converts, converts_tir

_SAME_TYPE = {"maximum": "maximum", "minimum": "minimum", "power": "power", "floor_divide": "floor_divide",
              "floor_mod": "floor_mod"}
_BOOL_OUT = ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "logical_and", "logical_or",
             "logical_not")


def _scalars_typed(args, dtype):
    """Python numbers (Relax PrimValues) as 0-d arrays of the operands' type."""
    return [np.asarray(a, dtype=dtype) if isinstance(a, (int, float, np.generic)) else a for a in args]


def broadcasting(op: str):
    def convert(ctx, attrs, args, out, hint):
        if not any(isinstance(a, Value) for a in args):
            ctx.fail(f"{op} of constants was not folded")
        runtime = next(a for a in args if isinstance(a, Value))
        args = _scalars_typed(args, ctx.type_of(runtime.name).dtype.numpy if op in _BOOL_OUT else out.dtype)
        names, nhwc = elementwise_inputs(ctx, args, out, hint)
        dtype = DTYPES.get(out.dtype)
        if dtype is None:
            ctx.fail(f"{op} giving {out.dtype} is not supported")
        return Value(ctx.node(op, names, TensorType(_shape_for(out, nhwc), dtype), hint), nhwc)

    return convert


for _name, _op in _SAME_TYPE.items():
    converts(_name)(broadcasting(_op))
for _name in _BOOL_OUT:
    converts(_name)(broadcasting(_name))
converts("where")(broadcasting("where"))


def _bounded(ctx, x: Value, low: float, high: float, out, hint: str) -> Value:
    if low == 0 and high == 6:
        return _unary("nn.relu6")(ctx, None, [x], out, hint)
    if low == 0 and high >= 3.4e38:
        return _unary("nn.relu")(ctx, None, [x], out, hint)
    if np.isnan(low) or np.isnan(high) or low > high:
        ctx.fail(f"clip to [{low}, {high}] is not supported (bounds must be ordered numbers)")
    value = x
    if low > -3.4e38:
        value = broadcasting("maximum")(ctx, None, [value, np.array(low, np.float32)], out, hint + ("_low" if high < 3.4e38 else ""))
    if high < 3.4e38:
        value = broadcasting("minimum")(ctx, None, [value, np.array(high, np.float32)], out, hint)
    return value


@converts("clip")
def clip(ctx, attrs, args, out, hint):
    if not isinstance(args[0], Value):
        ctx.fail("clip of a constant was not folded")
    return _bounded(ctx, args[0], float(args[1]), float(args[2]), out, hint)


def _scalar_bound(ctx, args) -> tuple[Value, float]:
    if len(args) != 2:
        ctx.fail("clip with bounds built into a TIR function is not supported")
    x, bound = args
    if not isinstance(x, Value) or not isinstance(bound, np.ndarray) or bound.size != 1:
        ctx.fail("clip needs a runtime tensor and constant scalar bounds")
    return x, float(bound.reshape(-1)[0])


@converts_tir("maximum")
def clip_below(ctx, attrs, args, out, hint):
    """ONNX Clip-11+ arrives as TIR maximum(x, lo) then minimum(., hi): max(x, 0) is a relu, min(relu(x), 6)
    a relu6 (relu6 after relu is relu6, which activation fusion uses); other bounds are the IR ops."""
    x, low = _scalar_bound(ctx, args)
    if low == 0.0:
        return _unary("nn.relu")(ctx, attrs, [x], out, hint)
    return broadcasting("maximum")(ctx, attrs, [x, np.array(low, np.float32)], out, hint)


@converts_tir("minimum")
def clip_above(ctx, attrs, args, out, hint):
    x, high = _scalar_bound(ctx, args)
    producer = next((n for n in reversed(ctx.nodes) if x.name in n.outputs), None)
    if high == 6.0 and producer is not None and producer.op == "nn.relu":
        return _unary("nn.relu6")(ctx, attrs, [x], out, hint)
    return broadcasting("minimum")(ctx, attrs, [x, np.array(high, np.float32)], out, hint)


@converts("nn.prelu")
def prelu(ctx, attrs, args, out, hint):
    """PReLU with slopes along `axis`: the slopes are shaped to broadcast along that axis (a per-channel vector
    of an NHWC value lands on its last axis)."""
    x, alpha = args
    if not isinstance(x, Value) or isinstance(alpha, Value):
        ctx.fail("prelu needs a runtime input and constant slopes")
    rank = out.rank
    axis = int(attrs.axis) % rank
    alpha = alpha.real() if isinstance(alpha, QConst) else np.asarray(alpha)
    if alpha.size > 1 and alpha.size != out.shape[axis] and rank > 1 and alpha.size == out.shape[1]:
        axis = 1  # PyTorch's channel axis: old exporters wrote a (C,) slope for an (N, C, ...) input
    shape = [1] * rank
    if alpha.size > 1:
        shape[axis] = alpha.size
    alpha = alpha.reshape(shape).astype(np.float32)
    if x.nhwc and rank in (3, 4):
        alpha = np.transpose(alpha, channels_last(rank))
        alpha = alpha.reshape(alpha.shape[-1:]) if all(d == 1 for d in alpha.shape[:-1]) else alpha
    names = [x.name, ctx.constant(alpha, hint + "_alpha")]
    t = ctx.type_of(x.name)
    return Value(ctx.node("nn.prelu", names, TensorType(t.shape, DType.FLOAT32), hint), x.nhwc)
