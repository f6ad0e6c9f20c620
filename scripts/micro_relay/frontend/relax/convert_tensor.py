"""Converters for element-wise, shape and quantization operators.

Element-wise ops keep an NHWC value NHWC: their constant operands are broadcast to 4-D and transposed now.
Shape ops (reshape, flatten, squeeze, expand_dims, transpose) need the model's element order, so an NHWC
input is first transposed back, unless NCHW and NHWC orders coincide (one channel, or a 1x1 image).
Constant-only shape ops are evaluated here, so weights keep their integer type through them.
"""

from __future__ import annotations

import numpy as np

from ...ir.types import DType, Quant, TensorType
from .context import QConst, Value, channels_first, channels_last
from .converters import converts

F32 = DType.FLOAT32


def _is_const(v) -> bool:
    return isinstance(v, (np.ndarray, QConst))


def _out(ctx, shape, dtype=F32, quant=None) -> TensorType:
    return TensorType(tuple(int(d) for d in shape), dtype, quant)


def _channel_vector(v, rank: int):
    """A constant broadcast over a channels-last value: expanded to its rank, transposed, then as small as it can be
    (a per-channel vector becomes shape (C,): the form a bias takes)."""
    shape = (1,) * (rank - v.data.ndim if isinstance(v, QConst) else rank - v.ndim) + tuple(
        v.data.shape if isinstance(v, QConst) else v.shape)
    v = v.reshape(shape) if isinstance(v, QConst) else v.reshape(shape)
    v = v.transpose(channels_last(rank)) if isinstance(v, QConst) else np.transpose(v, channels_last(rank))
    full = v.data.shape if isinstance(v, QConst) else v.shape
    if all(d == 1 for d in full[:-1]):
        v = v.reshape((full[-1],))
    return v


def _layout_for(ctx, args, rank: int) -> bool:
    """Run a broadcasting op NHWC when an operand is NHWC and every runtime operand is NHWC or a scalar."""
    runtime = [a for a in args if isinstance(a, Value)]
    if rank not in (3, 4) or not any(a.nhwc for a in runtime):
        return False
    return all(a.nhwc or ctx.type_of(a.name).size == 1 for a in runtime)


def elementwise_inputs(ctx, args, out, hint) -> tuple[list[str], bool]:
    nhwc = _layout_for(ctx, args, out.rank)
    names = []
    for i, a in enumerate(args):
        if nhwc and _is_const(a):
            names.append(ctx.tensor_of(_channel_vector(a, out.rank), f"{hint}_c{i}"))
        elif nhwc or not isinstance(a, Value):
            names.append(ctx.tensor_of(a, f"{hint}_c{i}"))
        else:
            names.append(ctx.model_order(a, hint))
    return names, nhwc


def _shape_for(out, nhwc: bool) -> tuple[int, ...]:
    return tuple(out.shape[a] for a in channels_last(out.rank)) if nhwc else out.shape


def _binary(op):
    def convert(ctx, attrs, args, out, hint):
        args = [np.asarray(a, dtype=out.dtype) if isinstance(a, (int, float)) else a for a in args]  # PrimValues
        names, nhwc = elementwise_inputs(ctx, args, out, hint)
        return Value(ctx.node(op, names, _out(ctx, _shape_for(out, nhwc)), hint), nhwc)

    return convert


converts("add")(_binary("add"))
converts("subtract")(_binary("subtract"))
converts("multiply")(_binary("multiply"))


@converts("divide")
def divide(ctx, attrs, args, out, hint):
    """By a float constant: a multiply by its reciprocal (what the importers' decompositions mean); by a
    runtime tensor: the divide op."""
    if isinstance(args[1], Value) or out.dtype != "float32":
        return _binary("divide")(ctx, attrs, args, out, hint)
    return _binary("multiply")(ctx, attrs, [args[0], (1.0 / np.asarray(args[1], np.float64)).astype(np.float32)], out,
                               hint)


def _unary(op, **fixed):
    def convert(ctx, attrs, args, out, hint):
        x = args[0]
        if not isinstance(x, Value):
            ctx.fail(f"{op} of a constant was not folded")
        t = ctx.type_of(x.name)
        return Value(ctx.node(op, [x.name], _out(ctx, t.shape, t.dtype), hint, **fixed), x.nhwc)

    return convert


converts("nn.relu")(_unary("nn.relu"))
converts("sigmoid")(_unary("sigmoid"))
converts("tanh")(_unary("tanh"))


@converts("nn.leakyrelu")
def leaky_relu(ctx, attrs, args, out, hint):
    return _unary("nn.leaky_relu", alpha=float(attrs.alpha))(ctx, attrs, args, out, hint)


# -- shape ops ----------------------------------------------------------------------------------------
def _plain_copy(ctx, v: Value) -> bool:
    """Channels-first and channels-last orders of this value are the same bytes."""
    shape = ctx.type_of(v.name).shape
    return shape[-1] == 1 or int(np.prod(shape[1:-1])) == 1


@converts("reshape", "flatten", "squeeze", "expand_dims")
def reshape(ctx, attrs, args, out, hint):
    x = args[0]
    if isinstance(x, QConst):
        return x.reshape(out.shape)
    if isinstance(x, np.ndarray):
        return x.reshape(out.shape)
    if x.nhwc and out.rank in (3, 4) and out.shape[:2] == _model_shape(ctx, x)[:2]:
        # batch and channels kept, only spatial axes regrouped (e.g. a 1-D map as a 1-pixel-high image):
        # the channels-last bytes are already the result's channels-last bytes
        t = ctx.type_of(x.name)
        shape = tuple(out.shape[a] for a in channels_last(out.rank))
        return Value(ctx.node("reshape", [x.name], _out(ctx, shape, t.dtype, t.quant), hint, newshape=shape), True)
    name = x.name if not x.nhwc or _plain_copy(ctx, x) else ctx.model_order(x, hint)
    if out.rank in (3, 4) and int(np.prod(out.shape[2:])) == 1:
        # a vector as a 1x1 image (a squeeze-excite gate before it scales a feature map): its channels-first
        # and channels-last bytes are the same, so it is stored channels-last and meets NHWC maps as they are
        t = ctx.type_of(name)
        shape = tuple(out.shape[a] for a in channels_last(out.rank))
        return Value(ctx.node("reshape", [name], _out(ctx, shape, t.dtype, t.quant), hint, newshape=shape), True)
    t = ctx.type_of(name)
    return Value(ctx.node("reshape", [name], _out(ctx, out.shape, t.dtype, t.quant), hint, newshape=out.shape))


def _model_shape(ctx, v: Value) -> tuple[int, ...]:
    shape = ctx.type_of(v.name).shape
    return tuple(shape[a] for a in channels_first(len(shape))) if v.nhwc else shape


@converts("permute_dims")
def permute_dims(ctx, attrs, args, out, hint):
    x = args[0]
    rank = out.rank
    axes = tuple(int(a) for a in attrs.axes) if attrs.axes is not None else tuple(reversed(range(rank)))
    if isinstance(x, QConst):
        return x.transpose(axes)
    if isinstance(x, np.ndarray):
        return np.ascontiguousarray(np.transpose(x, axes))
    if x.nhwc:  # compose: model order = transpose(ours, channels_first)
        axes = tuple(channels_first(rank)[a] for a in axes)
    if axes == tuple(range(rank)):
        return Value(x.name)
    return Value(ctx.transpose(x.name, axes, hint))


@converts("concat")
def concat(ctx, attrs, args, out, hint):
    parts = args[0]
    axis = int(attrs.axis) % out.rank
    nhwc = out.rank in (3, 4) and all(isinstance(p, Value) and p.nhwc for p in parts if isinstance(p, Value)) \
        and any(isinstance(p, Value) and p.nhwc for p in parts)
    if nhwc:
        names = [ctx.nhwc_order(p, f"{hint}_{i}") for i, p in enumerate(parts)]
        axis = channels_last(out.rank).index(axis)
    else:
        names = [ctx.model_order(p, f"{hint}_{i}") for i, p in enumerate(parts)]
    t = ctx.type_of(names[0])
    return Value(ctx.node("concatenate", names, _out(ctx, _shape_for(out, nhwc), t.dtype, t.quant), hint,
                          axis=axis), nhwc)


@converts("strided_slice")
def strided_slice(ctx, attrs, args, out, hint):
    x, axes, begin, end = args[0], args[1], args[2], args[3]
    strides = args[4] if len(args) > 4 and args[4] is not None else [1] * len(axes)
    if not isinstance(x, Value):
        ctx.fail("slicing a constant was not folded")
    name = ctx.model_order(x, hint)
    shape = ctx.type_of(name).shape
    full_begin, full_end, full_strides = [0] * len(shape), list(shape), [1] * len(shape)
    for a, b, e, s in zip(axes, begin, end, strides):
        a, b, e, s = int(a) % len(shape), int(b), int(e), int(s)
        if s < 1:
            ctx.fail(f"slice step {s} is not supported (only positive steps)")
        b = max(0, min(shape[a], b + shape[a] if b < 0 else b))
        e = max(0, min(shape[a], e + shape[a] if e < 0 else e))
        full_begin[a], full_end[a], full_strides[a] = b, e, s
    t = ctx.type_of(name)
    return Value(ctx.node("strided_slice", [name], _out(ctx, out.shape, t.dtype, t.quant), hint,
                          begin=tuple(full_begin), end=tuple(full_end), strides=tuple(full_strides),
                          newshape=out.shape))


def _reduce(op):
    def convert(ctx, attrs, args, out, hint):
        """A reduction over axes. NHWC input: with keepdims, or when both H and W go (what is left, N and C,
        has the same order in both layouts), it runs on the NHWC tensor; otherwise on the model's order."""
        x = args[0]
        if not isinstance(x, Value):
            ctx.fail(f"{op} of a constant was not folded")
        rank = ctx.type_of(x.name).rank
        axes = [int(a) % rank for a in attrs.axis] if attrs.axis is not None else list(range(rank))
        keep = bool(attrs.keepdims)
        name = x.name
        if x.nhwc:
            mapped = sorted(channels_last(rank).index(a) for a in axes)
            if keep or set(mapped) >= set(range(1, rank - 1)):
                axes = mapped
            else:
                name = ctx.model_order(x, hint)
        nhwc = x.nhwc and keep
        t = ctx.type_of(name)
        return Value(ctx.node(op, [name], _out(ctx, _shape_for(out, nhwc), t.dtype, t.quant), hint,
                              axis=tuple(sorted(axes)), keepdims=keep), nhwc)

    return convert


for _op in ("mean", "sum", "max", "min", "prod"):
    converts(_op)(_reduce(_op))


@converts("astype")
def astype(ctx, attrs, args, out, hint):
    x = args[0]
    if isinstance(x, np.ndarray):
        return x.astype(out.dtype)
    if isinstance(x, Value) and str(ctx.type_of(x.name).dtype.value) == out.dtype:
        return x
    ctx.fail(f"type conversion to {out.dtype} is not supported")


# -- quantization ---------------------------------------------------------------------------------------
def _qparams(ctx, args, what):
    scale, zp = args[1], args[2]
    if not isinstance(scale, np.ndarray) or not isinstance(zp, np.ndarray):
        ctx.fail(f"{what} needs constant scale and zero point")
    return scale.astype(np.float64), zp.astype(np.int64)


@converts("dequantize")
def dequantize(ctx, attrs, args, out, hint):
    x = args[0]
    scale, zp = _qparams(ctx, args, "dequantize")
    if isinstance(x, np.ndarray):
        axis = int(attrs.axis) % max(x.ndim, 1) if scale.size > 1 else None
        return QConst(x, scale.reshape(-1), zp.reshape(-1), axis)
    if scale.size != 1:
        ctx.fail("per-channel dequantize of a runtime tensor is not supported")
    t = ctx.type_of(x.name)
    q = t.quant
    if q is None:  # an integer graph input: it takes these parameters
        ctx.tensors[x.name] = ctx.tensors[x.name].__class__(x.name, TensorType(t.shape, t.dtype, Quant.tensor(
            float(scale.reshape(-1)[0]), int(zp.reshape(-1)[0]))))
    elif abs(q.scale - float(scale.reshape(-1)[0])) > 1e-12 * abs(q.scale) or q.zero_point != int(zp.reshape(-1)[0]):
        ctx.fail("dequantize parameters differ from those the tensor was quantized with")
    return Value(ctx.node("qnn.dequantize", [x.name], _out(ctx, t.shape), hint), x.nhwc)


@converts("quantize")
def quantize(ctx, attrs, args, out, hint):
    x = args[0]
    scale, zp = _qparams(ctx, args, "quantize")
    if isinstance(x, np.ndarray):
        return _quantized_constant(ctx, attrs, x, scale, zp, out.dtype)
    if not isinstance(x, Value):
        ctx.fail("quantize of a constant is not supported")
    if scale.size != 1:
        ctx.fail("per-channel quantize of a runtime tensor is not supported")
    dtype = {"int8": DType.INT8, "uint8": DType.UINT8, "int16": DType.INT16}.get(out.dtype)
    if dtype is None:
        ctx.fail(f"quantize to {out.dtype} is not supported")
    t = ctx.type_of(x.name)
    quant = Quant.tensor(float(scale.reshape(-1)[0]), int(zp.reshape(-1)[0]))
    return Value(ctx.node("qnn.quantize", [x.name], _out(ctx, t.shape, dtype, quant), hint), x.nhwc)


def _quantized_constant(ctx, attrs, x, scale, zp, dtype: str) -> np.ndarray:
    """QuantizeLinear of an initializer (a QDQ export quantizes float constants such as a position embedding
    at run time): folded here, rounding half to even and saturating as ONNX does."""
    limits = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767)}.get(dtype)
    if limits is None or not np.all(np.isfinite(scale)) or np.any(scale <= 0):
        ctx.fail(f"quantize of a constant to {dtype} with scale {scale.reshape(-1)[:4]} is not supported")
    if not np.all(np.isfinite(x)):
        ctx.fail("quantize of a constant with non-finite values is not supported")
    if scale.size > 1:
        axis = int(attrs.axis) % max(x.ndim, 1)
        shape = [1] * x.ndim
        shape[axis] = -1
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    q = np.rint(x.astype(np.float64) / scale) + zp
    return np.asarray(np.clip(q, *limits)).astype(dtype)
