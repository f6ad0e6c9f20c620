"""Transposed convolutions (ONNX ConvTranspose, torch's ConvTranspose1d/2d) as the TFLite-style NHWC op.

Relax gives NCHW data and IOHW weights (input channels first, then the output channels of one group); both
scatter `x[iy] * w[ky]` to output row `iy * stride - pad_top + ky`, so the weight becomes OHWI by a transpose
and the output window (`output_padding` included) is the op's `output_shape`. What nn.conv2d_transpose has no
attribute for is rewritten exactly: a dilated kernel is the kernel with zero taps between its taps, and a
grouped one is one transposed convolution per group on a channel slice, concatenated.
"""

from __future__ import annotations

import numpy as np

from ...ir.types import DType, TensorType
from .context import QConst, Value
from .converters import converts

F32 = DType.FLOAT32


def _ints(values) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def _data(w) -> np.ndarray:
    return w.data if isinstance(w, QConst) else w


def _with_data(w, data: np.ndarray):
    return QConst(data, w.scales, w.zero_points, w.axis) if isinstance(w, QConst) else data


def _dilated(ctx, w, dilation: tuple[int, int]):
    """IOHW weights with (d - 1) zero taps between neighbouring taps."""
    if dilation == (1, 1):
        return w
    if isinstance(w, QConst) and np.any(w.zero_points != 0):
        ctx.fail("a dilated transposed convolution needs weights quantized with zero point 0")
    data = _data(w)
    i, o, kh, kw = data.shape
    dh, dw = dilation
    out = np.zeros((i, o, (kh - 1) * dh + 1, (kw - 1) * dw + 1), dtype=data.dtype)
    out[:, :, ::dh, ::dw] = data
    return _with_data(w, out)


def _group(w, index: int, groups: int):
    """Group `index` of IOHW weights: its input-channel rows."""
    data = _data(w)
    rows = data.shape[0] // groups
    part = np.ascontiguousarray(data[index * rows:(index + 1) * rows])
    return _with_data(w, part)


def _slice_channels(ctx, data: str, begin: int, end: int, hint: str) -> str:
    t = ctx.type_of(data)
    n, h, w, _ = t.shape
    return ctx.node("strided_slice", [data], TensorType((n, h, w, end - begin), t.dtype, t.quant), hint,
                    begin=(0, 0, 0, begin), end=(n, h, w, end), strides=(1, 1, 1, 1), newshape=(n, h, w, end - begin))


def _transpose_conv(ctx, data: str, w, common: dict, out_shape, hint: str) -> str:
    weight = ctx.tensor_of(w.transpose((1, 2, 3, 0)) if isinstance(w, QConst) else
                           np.ascontiguousarray(np.transpose(w, (1, 2, 3, 0))), f"{hint}_w")
    return ctx.node("nn.conv2d_transpose", [data, weight, ""], TensorType(tuple(out_shape), F32), hint,
                    output_shape=tuple(out_shape), **common)


def conv_transpose_nhwc(ctx, data: str, w, attrs, padding, out_shape, hint: str) -> str:
    """An NHWC transposed convolution of `data` by IOHW weights; groups and dilation rewritten."""
    if isinstance(w, Value):
        ctx.fail("transposed convolution weight must be a constant (a runtime tensor as weights is not supported)")
    groups = int(attrs.groups)
    dilation = _ints(attrs.dilation)
    if isinstance(w, QConst) and groups > 1 and w.axis is not None and w.scales.size > 1:
        ctx.fail("a grouped transposed convolution with per-channel quantized weights is not supported")
    w = _dilated(ctx, w, dilation)
    common = {"strides": _ints(attrs.strides), "padding": tuple(padding)}
    in_c = ctx.type_of(data).shape[3]
    if groups == 1:
        return _transpose_conv(ctx, data, w, common, out_shape, hint)
    if in_c % groups or out_shape[3] % groups:
        ctx.fail(f"{groups} groups do not divide {in_c} input and {out_shape[3]} output channels")
    step, out_step = in_c // groups, out_shape[3] // groups
    parts = []
    for g in range(groups):
        part = _slice_channels(ctx, data, g * step, (g + 1) * step, f"{hint}_g{g}_in")
        parts.append(_transpose_conv(ctx, part, _group(w, g, groups), common,
                                     (*out_shape[:3], out_step), f"{hint}_g{g}"))
    return ctx.node("concatenate", parts, TensorType(tuple(out_shape), F32), hint, axis=3)


def _check_layout(ctx, attrs, data: str, kernel: str):
    if str(attrs.data_layout) != data or str(attrs.kernel_layout) != kernel or str(attrs.out_layout) != data:
        ctx.fail(f"transposed convolution layout {attrs.data_layout}/{attrs.kernel_layout} is not supported "
                 f"({data}/{kernel})")


@converts("nn.conv2d_transpose")
def conv2d_transpose(ctx, attrs, args, out, hint):
    _check_layout(ctx, attrs, "NCHW", "IOHW")
    n, c, h, w = out.shape
    data = ctx.nhwc_order(args[0], hint)
    return Value(conv_transpose_nhwc(ctx, data, args[1], attrs, _ints(attrs.padding), (n, h, w, c), hint), nhwc=True)


class _Attrs2d:
    """conv1d_transpose attributes seen as those of a 2-D one over a 1-pixel-high image."""

    def __init__(self, attrs):
        self.groups = attrs.groups
        self.dilation = (1, *_ints(attrs.dilation))
        self.strides = (1, *_ints(attrs.strides))


@converts("nn.conv1d_transpose")
def conv1d_transpose(ctx, attrs, args, out, hint):
    _check_layout(ctx, attrs, "NCW", "IOW")
    w = args[1]
    if isinstance(w, Value):
        ctx.fail("transposed convolution weight must be a constant (a runtime tensor as weights is not supported)")
    i, o, k = (w.data if isinstance(w, QConst) else w).shape
    w = w.reshape((i, o, 1, k))
    left, right = _ints(attrs.padding)
    data = ctx.nhwc_order(args[0], hint)
    n, width, c = ctx.type_of(data).shape
    t = ctx.type_of(data)
    image = ctx.node("reshape", [data], TensorType((n, 1, width, c), t.dtype, t.quant), hint + "_2d",
                     newshape=(n, 1, width, c))
    n, out_c, out_w = out.shape
    name = conv_transpose_nhwc(ctx, image, w, _Attrs2d(attrs), (0, left, 0, right), (n, 1, out_w, out_c),
                               hint + "_conv")
    return Value(ctx.node("reshape", [name], TensorType((n, out_w, out_c), F32), hint, newshape=(n, out_w, out_c)),
                 nhwc=True)
