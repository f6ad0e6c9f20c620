"""3-D pooling and convolution (NCDHW) on the 2-D ops.

A 3-D max or average pool is separable: the 2-D pool over (H, W) of every depth slice (depth folded into the
batch), then a (kd x 1) pool over depth. The maximum of maxima is the maximum; the in-image tap count of a
window is the product of its per-axis counts, so the mean of means is the mean (padding counted or not,
ceil mode, dilation: each stage takes its axes' share, as the 2-D pools do).

A 3-D convolution is one 2-D convolution: for each depth tap kd, the input slices at depths d*sd + kd*dd (a
strided slice of the zero-padded input) are concatenated along channels, the output depths folded into the
batch, and the weights (O, I, KD, KH, KW) become (O, KH, KW, KD*I) in the same tap-major order. Groups are
one such convolution per channel group, concatenated.
"""

from __future__ import annotations

import numpy as np

from ...ir.types import DType, TensorType
from .context import QConst, Value
from .convert_nn import _pool_nhwc
from .converters import converts

F32 = DType.FLOAT32
TO_NDHWC, TO_NCDHW = (0, 2, 3, 4, 1), (0, 4, 1, 2, 3)


def _ints(values) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def _reshape(ctx, name: str, shape, hint: str) -> str:
    t = ctx.type_of(name)
    return ctx.node("reshape", [name], TensorType(tuple(shape), t.dtype, t.quant), hint, newshape=tuple(shape))


def _channels_last(ctx, x, hint: str) -> str:
    if not isinstance(x, Value):
        ctx.fail("a 3-D pool or convolution of a constant was not folded")
    return ctx.transpose(ctx.model_order(x, hint), TO_NDHWC, hint + "_ndhwc")


def _pool3d(op):
    def convert(ctx, attrs, args, out, hint):
        if str(attrs.layout) != "NCDHW":
            ctx.fail(f"3-D pooling layout {attrs.layout} is not supported (NCDHW)")
        kd, kh, kw = _ints(attrs.pool_size)
        sd, sh, sw = _ints(attrs.strides)
        dd, dh, dw = _ints(attrs.dilation)
        front, top, left, back, bottom, right = _ints(attrs.padding)
        data = _channels_last(ctx, args[0], hint)
        n, d, h, w, c = ctx.type_of(data).shape
        _, _, out_d, out_h, out_w = out.shape
        planes = _reshape(ctx, data, (n * d, h, w, c), hint + "_planes")
        planes = _pool_nhwc(ctx, op, attrs, planes, ((kh, kw), (sh, sw), (dh, dw), (top, left, bottom, right)),
                            (out_h, out_w), hint + "_hw")
        columns = _reshape(ctx, planes, (n, d, out_h * out_w, c), hint + "_columns")
        depth = _pool_nhwc(ctx, op, attrs, columns, ((kd, 1), (sd, 1), (dd, 1), (front, 0, back, 0)),
                           (out_d, out_h * out_w), hint + "_d")
        volume = _reshape(ctx, depth, (n, out_d, out_h, out_w, c), hint + "_volume")
        return Value(ctx.transpose(volume, TO_NCDHW, hint))

    return convert


converts("nn.max_pool3d")(_pool3d("nn.max_pool2d"))
converts("nn.avg_pool3d")(_pool3d("nn.avg_pool2d"))


def _depth_taps(ctx, data: str, kd: int, sd: int, dd: int, out_d: int, hint: str) -> str:
    """(N, out_d, H, W, KD*C): the input depths each output depth reads, tap by tap along channels."""
    n, _, h, w, c = ctx.type_of(data).shape
    t = ctx.type_of(data)
    taps = []
    for k in range(kd):
        begin = k * dd
        end = begin + (out_d - 1) * sd + 1
        taps.append(ctx.node("strided_slice", [data], TensorType((n, out_d, h, w, c), t.dtype, t.quant),
                             f"{hint}_tap{k}", begin=(0, begin, 0, 0, 0), end=(n, end, h, w, c),
                             strides=(1, sd, 1, 1, 1), newshape=(n, out_d, h, w, c)))
    if kd == 1:
        return taps[0]
    return ctx.node("concatenate", taps, TensorType((n, out_d, h, w, kd * c), t.dtype, t.quant), hint + "_taps",
                    axis=4)


@converts("nn.conv3d")
def conv3d(ctx, attrs, args, out, hint):
    if str(attrs.data_layout) != "NCDHW" or str(attrs.kernel_layout) != "OIDHW":
        ctx.fail(f"conv3d layout {attrs.data_layout}/{attrs.kernel_layout} is not supported (NCDHW/OIDHW)")
    w = args[1]
    if isinstance(w, (Value, QConst)):
        ctx.fail("conv3d needs float constant weights")
    sd, sh, sw = _ints(attrs.strides)
    dd, dh, dw = _ints(attrs.dilation)
    front, top, left, back, bottom, right = _ints(attrs.padding)
    groups = int(attrs.groups)
    data = _channels_last(ctx, args[0], hint)
    n, d, h, wd, c = ctx.type_of(data).shape
    if front or back:
        data = ctx.node("nn.pad", [data], TensorType((n, d + front + back, h, wd, c), F32), hint + "_pad",
                        pad_width=(0, 0, front, back, 0, 0, 0, 0, 0, 0))
    o, per_group, kd, kh, kw = w.shape
    _, _, out_d, out_h, out_w = out.shape
    parts = []
    for g in range(groups):
        part = data
        if groups > 1:
            t = ctx.type_of(data)
            shape = (*t.shape[:4], per_group)
            part = ctx.node("strided_slice", [data], TensorType(shape, F32), f"{hint}_g{g}",
                            begin=(0, 0, 0, 0, g * per_group), end=(*t.shape[:4], (g + 1) * per_group),
                            strides=(1, 1, 1, 1, 1), newshape=shape)
        taps = _depth_taps(ctx, part, kd, sd, dd, out_d, f"{hint}_g{g}")
        planes = _reshape(ctx, taps, (n * out_d, h, wd, kd * per_group), f"{hint}_g{g}_planes")
        rows = w[g * (o // groups):(g + 1) * (o // groups)]
        weight = np.ascontiguousarray(np.transpose(rows, (0, 3, 4, 2, 1)).reshape(len(rows), kh, kw, kd * per_group))
        parts.append(ctx.node("nn.conv2d", [planes, ctx.constant(weight, f"{hint}_g{g}_w"), ""],
                              TensorType((n * out_d, out_h, out_w, len(rows)), F32), f"{hint}_g{g}_conv",
                              strides=(sh, sw), dilation=(dh, dw), padding=(top, left, bottom, right)))
    conv = parts[0] if groups == 1 else ctx.node(
        "concatenate", parts, TensorType((n * out_d, out_h, out_w, o), F32), hint + "_groups", axis=3)
    volume = _reshape(ctx, conv, (n, out_d, out_h, out_w, o), hint + "_volume")
    return Value(ctx.transpose(volume, TO_NCDHW, hint))

