"""Padding (ONNX Pad, torch's F.pad and the *Pad2d modules) in the layout the value has.

Constant padding is the nn.pad op. Reflect and replicate padding are data movement only: along each padded
axis the border rows are one-row strided slices (rows p..1 and n-2..n-1-p when reflecting, which excludes
the edge; row 0 and row n-1 repeated when replicating), concatenated around the input. No value is computed,
so the result is exact in every type.
"""

from __future__ import annotations

import numpy as np

from ...ir.types import TensorType
from .context import Value, channels_last
from .converters import converts


def _row(ctx, name: str, axis: int, index: int, hint: str) -> str:
    t = ctx.type_of(name)
    begin, end = [0] * t.rank, list(t.shape)
    begin[axis], end[axis] = index, index + 1
    shape = list(t.shape)
    shape[axis] = 1
    return ctx.node("strided_slice", [name], TensorType(tuple(shape), t.dtype, t.quant), hint, begin=tuple(begin),
                    end=tuple(end), strides=(1,) * t.rank, newshape=tuple(shape))


def _border_rows(ctx, mode: str, length: int, before: int, after: int) -> tuple[list[int], list[int]]:
    if mode == "reflect":
        if max(before, after) >= length:
            ctx.fail(f"reflect padding by {max(before, after)} needs an axis longer than {length}")
        return list(range(before, 0, -1)), list(range(length - 2, length - 2 - after, -1))
    return [0] * before, [length - 1] * after


def _moved(ctx, name: str, pairs, mode: str, hint: str) -> str:
    """Reflect or replicate padding, one axis at a time."""
    for axis, (before, after) in enumerate(pairs):
        if not before and not after:
            continue
        t = ctx.type_of(name)
        lead, tail = _border_rows(ctx, mode, t.shape[axis], before, after)
        rows = {i: _row(ctx, name, axis, i, f"{hint}_a{axis}r{i}") for i in sorted(set(lead + tail))}
        parts = [rows[i] for i in lead] + [name] + [rows[i] for i in tail]
        shape = list(t.shape)
        shape[axis] += before + after
        name = ctx.node("concatenate", parts, TensorType(tuple(shape), t.dtype, t.quant), f"{hint}_a{axis}",
                        axis=axis)
    return name


@converts("nn.pad")
def pad(ctx, attrs, args, out, hint):
    x = args[0]
    if not isinstance(x, Value):
        ctx.fail("padding a constant was not folded")
    mode = str(getattr(attrs, "pad_mode", "constant"))
    if mode not in ("constant", "reflect", "replicate"):
        ctx.fail(f"pad mode '{mode}' is not supported (constant, reflect, replicate)")
    widths = [int(w) for w in attrs.pad_width]
    value = float(args[1]) if len(args) > 1 and args[1] is not None and np.ndim(args[1]) == 0 else \
        float(getattr(attrs, "pad_value", 0.0) or 0.0)
    pairs = [(widths[2 * i], widths[2 * i + 1]) for i in range(len(widths) // 2)]
    if any(b < 0 or a < 0 for b, a in pairs):
        ctx.fail("negative padding (cropping) is not supported")
    if x.nhwc:
        pairs = [pairs[a] for a in channels_last(len(pairs))]
    t = ctx.type_of(x.name)
    shape = tuple(d + b + a for d, (b, a) in zip(t.shape, pairs))
    if mode != "constant":
        return Value(_moved(ctx, x.name, pairs, mode, hint), x.nhwc)
    attrs_out = {"pad_width": tuple(v for pair in pairs for v in pair)}
    if value != 0.0:
        attrs_out["pad_value"] = value
    return Value(ctx.node("nn.pad", [x.name], TensorType(shape, t.dtype, t.quant), hint, **attrs_out), x.nhwc)
