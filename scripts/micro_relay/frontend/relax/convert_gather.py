"""Gather-like and broadcasting shape operators: take, tile, broadcast_to, stack, variance.

take with constant positions on a runtime tensor (PyTorch's reflect padding, index_select by a constant) is
data movement: runs of consecutive positions become strided slices, concatenated; runtime positions into a
constant table (an embedding) or many scattered positions are the take op, with ONNX's negative positions.
These run in the model's element order. variance (ONNX InstanceNormalization's decomposition) is the mean of
the squared deviation from the mean, as Relax defines it.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...ir.types import TensorType
from .context import QConst, Value
from .convert_tensor import _binary, _reduce
from .converters import converts

MAX_SLICED_RUNS = 8  # constant positions in at most this many runs become slices, more make a take


def _runs(positions) -> list[tuple[int, int]]:
    """[begin, end) runs of consecutive increasing positions."""
    runs: list[list[int]] = []
    for p in positions:
        if runs and p == runs[-1][1]:
            runs[-1][1] += 1
        else:
            runs.append([p, p + 1])
    return [(a, b) for a, b in runs]


def _slice(ctx, name: str, axis: int, begin: int, end: int, hint: str) -> str:
    t = ctx.type_of(name)
    starts, stops = [0] * t.rank, list(t.shape)
    starts[axis], stops[axis] = begin, end
    shape = list(t.shape)
    shape[axis] = end - begin
    return ctx.node("strided_slice", [name], TensorType(tuple(shape), t.dtype, t.quant), hint, begin=tuple(starts),
                    end=tuple(stops), strides=(1,) * t.rank, newshape=tuple(shape))


def _rank(ctx, v) -> int:
    if isinstance(v, Value):
        return ctx.type_of(v.name).rank
    return (v.data if isinstance(v, QConst) else v).ndim


@converts("take")
def take(ctx, attrs, args, out, hint):
    data, positions = args
    if isinstance(data, QConst) and not isinstance(positions, Value):
        data = data.real()
    axis = int(attrs.axis) % _rank(ctx, data) if attrs.axis is not None else 0
    if isinstance(data, np.ndarray) and isinstance(positions, np.ndarray):
        return np.take(data, positions.astype(np.int64), axis=axis, mode="wrap").astype(data.dtype)
    name = ctx.model_order(data, hint)
    t = ctx.type_of(name)
    if isinstance(positions, np.ndarray):
        flat = [int(p) % t.shape[axis] if -t.shape[axis] <= p < t.shape[axis] else None for p in positions.ravel()]
        if None in flat:
            ctx.fail(f"take positions {positions.ravel()[:8].tolist()} fall outside an axis of {t.shape[axis]}")
        runs = _runs(flat)
        if positions.ndim == 1 and len(runs) <= MAX_SLICED_RUNS:
            parts = [_slice(ctx, name, axis, a, b, f"{hint}_{i}") for i, (a, b) in enumerate(runs)]
            if len(parts) == 1:
                return Value(parts[0])
            return Value(ctx.node("concatenate", parts, TensorType(out.shape, t.dtype, t.quant), hint, axis=axis))
    index = ctx.model_order(positions, hint + "_pos")
    return Value(ctx.node("take", [name, index], TensorType(out.shape, t.dtype, t.quant), hint, axis=axis,
                          wrap_negative=True))


@converts("tile")
def tile(ctx, attrs, args, out, hint):
    x = args[0]
    reps = tuple(int(r) for r in attrs.repeats)
    if isinstance(x, (np.ndarray, QConst)):
        return np.tile(x.real() if isinstance(x, QConst) else x, reps)
    name = ctx.model_order(x, hint)
    t = ctx.type_of(name)
    reps = (1,) * (len(out.shape) - len(reps)) + reps
    if t.rank < len(out.shape):
        shape = (1,) * (len(out.shape) - t.rank) + t.shape
        name = ctx.node("reshape", [name], TensorType(shape, t.dtype, t.quant), hint + "_rank", newshape=shape)
    return Value(ctx.node("tile", [name], TensorType(out.shape, t.dtype, t.quant), hint, reps=reps))


@converts("broadcast_to")
def broadcast_to(ctx, attrs, args, out, hint):
    x = args[0]
    if isinstance(x, (np.ndarray, QConst)):
        return np.broadcast_to(x.real() if isinstance(x, QConst) else x, out.shape).copy()
    if _model_shape(ctx, x) == out.shape:
        return x
    name = ctx.model_order(x, hint)
    t = ctx.type_of(name)
    return Value(ctx.node("broadcast_to", [name], TensorType(out.shape, t.dtype, t.quant), hint, shape=out.shape))


def _model_shape(ctx, v: Value) -> tuple[int, ...]:
    shape = ctx.type_of(v.name).shape
    if not v.nhwc:
        return shape
    return (shape[0], shape[-1], *shape[1:-1])


@converts("stack")
def stack(ctx, attrs, args, out, hint):
    parts = args[0]
    axis = int(attrs.axis) % len(out.shape)
    if all(isinstance(p, np.ndarray) for p in parts):
        return np.stack(parts, axis=axis)
    names = []
    for i, p in enumerate(parts):
        name = ctx.model_order(p, f"{hint}_{i}")
        t = ctx.type_of(name)
        shape = t.shape[:axis] + (1,) + t.shape[axis:]
        names.append(ctx.node("reshape", [name], TensorType(shape, t.dtype, t.quant), f"{hint}_{i}_1", newshape=shape))
    t = ctx.type_of(names[0])
    return Value(ctx.node("concatenate", names, TensorType(out.shape, t.dtype, t.quant), hint, axis=axis))


@converts("variance")
def variance(ctx, attrs, args, out, hint):
    x = args[0]
    if not isinstance(x, Value):
        ctx.fail("variance of a constant was not folded")
    keep = SimpleNamespace(axis=attrs.axis, keepdims=True)
    shape = _model_shape(ctx, x)
    mean_shape = tuple(1 if i in [int(a) % len(shape) for a in attrs.axis] else d for i, d in enumerate(shape))
    typed = SimpleNamespace(shape=mean_shape, rank=len(shape), dtype="float32")
    full = SimpleNamespace(shape=shape, rank=len(shape), dtype="float32")
    mean = _reduce("mean")(ctx, keep, [x], typed, hint + "_mean")
    deviation = _binary("subtract")(ctx, None, [x, mean], full, hint + "_dev")
    square = _binary("multiply")(ctx, None, [deviation, deviation], full, hint + "_sq")
    return _reduce("mean")(ctx, SimpleNamespace(axis=attrs.axis, keepdims=bool(attrs.keepdims)), [square], out, hint)
