"""Converters for operators with weights or windows: convolutions, pooling, matmul, softmax.

NCHW convolutions and pools become the NHWC ops of the TFLite path. Weights are transposed here:
OIHW -> OHWI for a convolution (grouped or not), OIHW -> (1, KH, KW, O) for a depthwise one (groups equal to
the input channels). A QDQ model's weights arrive as `QConst` and keep their integer type and per-channel
scales through the transpose (the channel axis moves with its data).
"""

from __future__ import annotations

import numpy as np

from ...ir.types import DType, TensorType
from .context import TO_NHWC, QConst, Value, channels_last
from .converters import converts
from .pool_dilated import dilated_pool

F32 = DType.FLOAT32


def _ints(values) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def _nhwc_shape(shape) -> tuple[int, ...]:
    return tuple(shape[a] for a in TO_NHWC)


def _weight(ctx, w, what: str):
    if isinstance(w, Value):
        ctx.fail(f"{what} must be a constant (a runtime tensor as weights is not supported)")
    return w


def _transposed(w, axes):
    return w.transpose(axes) if isinstance(w, QConst) else np.ascontiguousarray(np.transpose(w, axes))


def _shape(w) -> tuple[int, ...]:
    return tuple(w.data.shape if isinstance(w, QConst) else w.shape)


def _convolution(ctx, data: str, w, groups: int, common: dict, out_shape, hint: str) -> str:
    """An NHWC convolution of `data` by OIHW weights `w`: depthwise when every group is one input channel."""
    in_c = ctx.type_of(data).shape[3]
    out_c, per_group = _shape(w)[:2]
    out_type = TensorType(tuple(out_shape), F32)
    if groups > 1 and groups == in_c and per_group == 1:
        weight = ctx.tensor_of(_transposed(w, (1, 2, 3, 0)), f"{hint}_w")
        return ctx.node("nn.depthwise_conv2d", [data, weight, ""], out_type, hint,
                        depth_multiplier=out_c // in_c, **common)
    weight = ctx.tensor_of(_transposed(w, (0, 2, 3, 1)), f"{hint}_w")
    return ctx.node("nn.conv2d", [data, weight, ""], out_type, hint, **common)


@converts("nn.conv2d")
def conv2d(ctx, attrs, args, out, hint):
    if str(attrs.data_layout) != "NCHW" or str(attrs.kernel_layout) != "OIHW" or str(attrs.out_layout) != "NCHW":
        ctx.fail(f"conv2d layout {attrs.data_layout}/{attrs.kernel_layout} is not supported (NCHW/OIHW)")
    w = _weight(ctx, args[1], "convolution weight")
    common = dict(strides=_ints(attrs.strides), dilation=_ints(attrs.dilation), padding=_ints(attrs.padding))
    data = ctx.nhwc_order(args[0], hint)
    return Value(_convolution(ctx, data, w, int(attrs.groups), common, _nhwc_shape(out.shape), hint), nhwc=True)


def _as_2d(ctx, v, hint: str) -> str:
    """A 1-D (N, C, W) value as the NHWC image (N, 1, W, C): channels-last storage makes it a free reshape."""
    data = ctx.nhwc_order(v, hint)
    n, width, c = ctx.type_of(data).shape
    t = ctx.type_of(data)
    return ctx.node("reshape", [data], TensorType((n, 1, width, c), t.dtype, t.quant), hint + "_2d",
                    newshape=(n, 1, width, c))


def _from_2d(ctx, name: str, hint: str) -> Value:
    n, _, width, c = ctx.type_of(name).shape
    t = ctx.type_of(name)
    return Value(ctx.node("reshape", [name], TensorType((n, width, c), t.dtype, t.quant), hint,
                          newshape=(n, width, c)), nhwc=True)


@converts("nn.conv1d")
def conv1d(ctx, attrs, args, out, hint):
    """A 1-D convolution is a 2-D one over a 1-pixel-high image."""
    if str(attrs.data_layout) != "NCW" or str(attrs.kernel_layout) != "OIW" or str(attrs.out_layout) != "NCW":
        ctx.fail(f"conv1d layout {attrs.data_layout}/{attrs.kernel_layout} is not supported (NCW/OIW)")
    w = _weight(ctx, args[1], "convolution weight")
    o, i, k = _shape(w)
    w = w.reshape((o, i, 1, k))
    left, right = _ints(attrs.padding)
    common = dict(strides=(1, *_ints(attrs.strides)), dilation=(1, *_ints(attrs.dilation)), padding=(0, left, 0, right))
    n, out_c, width = out.shape
    name = _convolution(ctx, _as_2d(ctx, args[0], hint), w, int(attrs.groups), common, (n, 1, width, out_c),
                        hint + "_conv")
    return _from_2d(ctx, name, hint)


def _pool_checks(ctx, attrs, layout):
    if str(attrs.layout) != layout:
        ctx.fail(f"pooling layout {attrs.layout} is not supported ({layout})")


def _pool_nhwc(ctx, op, attrs, data: str, window, out_hw, hint: str) -> str:
    """An NHWC pool of `data`; window = (pool_size, strides, dilation, padding) as 2-D tuples.

    TFLite's pools never count padding and size their output by floor. ceil_mode is more bottom/right
    padding (the extra windows read the image only); count_include_pad is the padding made explicit
    zeros (a window past it, in ceil mode, counts only up to it, as PyTorch and onnxruntime do)."""
    pool_size, strides, dilation, padding = window
    if op == "nn.avg_pool2d" and bool(attrs.count_include_pad) and any(padding):
        t = ctx.type_of(data)
        top, left, bottom, right = padding
        n, h, w, c = t.shape
        data = ctx.node("nn.pad", [data], TensorType((n, h + top + bottom, w + left + right, c), t.dtype, t.quant),
                        hint + "_pad", pad_width=(0, 0, top, bottom, left, right, 0, 0))
        padding = (0, 0, 0, 0)
    if bool(attrs.ceil_mode):
        _, h, w, _ = ctx.type_of(data).shape
        extra = []
        for size, k, s, d, before, after, outs in zip((h, w), pool_size, strides, dilation, padding[:2],
                                                       padding[2:], out_hw):
            extra.append(max(after, (outs - 1) * s + (k - 1) * d + 1 - size - before))
        padding = (*padding[:2], *extra)
    if any(d != 1 for d in dilation):
        return dilated_pool(ctx, op, data, pool_size, strides, dilation, padding, out_hw, hint)
    t = ctx.type_of(data)
    return ctx.node(op, [data], TensorType((t.shape[0], *out_hw, t.shape[3]), t.dtype), hint,
                    pool_size=pool_size, strides=strides, padding=padding)


def _pool(op):
    def convert(ctx, attrs, args, out, hint):
        _pool_checks(ctx, attrs, "NCHW")
        data = ctx.nhwc_order(args[0], hint)
        window = (_ints(attrs.pool_size), _ints(attrs.strides), _ints(attrs.dilation), _ints(attrs.padding))
        return Value(_pool_nhwc(ctx, op, attrs, data, window, out.shape[2:], hint), nhwc=True)

    return convert


def _pool1d(op):
    def convert(ctx, attrs, args, out, hint):
        left, right = _ints(attrs.padding)
        _pool_checks(ctx, attrs, "NCW")
        data = _as_2d(ctx, args[0], hint)
        window = ((1, *_ints(attrs.pool_size)), (1, *_ints(attrs.strides)), (1, *_ints(attrs.dilation)),
                  (0, left, 0, right))
        return _from_2d(ctx, _pool_nhwc(ctx, op, attrs, data, window, (1, out.shape[2]), hint + "_pool"), hint)

    return convert


converts("nn.max_pool2d")(_pool("nn.max_pool2d"))
converts("nn.avg_pool2d")(_pool("nn.avg_pool2d"))
converts("nn.max_pool1d")(_pool1d("nn.max_pool2d"))
converts("nn.avg_pool1d")(_pool1d("nn.avg_pool2d"))


@converts("nn.adaptive_avg_pool2d")
def adaptive_avg_pool2d(ctx, attrs, args, out, hint):
    data = ctx.nhwc_order(args[0], hint)
    n, h, w, c = ctx.type_of(data).shape
    if out.shape[2:] == (h, w):
        return Value(data, nhwc=True)
    if out.shape[2:] != (1, 1):
        ctx.fail(f"adaptive average pooling to {list(out.shape[2:])} is not supported (only to 1x1)")
    name = ctx.node("mean", [data], TensorType((n, 1, 1, c), F32), hint, axis=(1, 2), keepdims=True)
    return Value(name, nhwc=True)


@converts("matmul")
def matmul(ctx, attrs, args, out, hint):
    """x @ B with a constant B (K, N): a dense layer with weight B^T (N, K). A runtime B (attention's
    Q K^T, torch.mm of two inputs) makes an nn.batch_matmul of the two, batch dims broadcast."""
    x, b = args
    if isinstance(b, Value):
        return _batch_matmul(ctx, x, b, out, hint)
    if not isinstance(x, Value):
        ctx.fail("matmul needs a runtime left operand")
    b = _weight(ctx, b, "matmul right operand")
    if len(_shape(b)) != 2:
        ctx.fail(f"matmul by a {len(_shape(b))}-D constant is not supported (only 2-D)")
    data = ctx.model_order(x, hint)
    weight = ctx.tensor_of(_transposed(b, (1, 0)), f"{hint}_w")
    name = ctx.node("nn.dense", [data, weight, ""], TensorType(out.shape, F32), hint, output_shape=out.shape)
    return Value(name)


def _batch_matmul(ctx, x, b, out, hint):
    lhs, rhs = ctx.model_order(x, hint + "_lhs"), ctx.model_order(b, hint + "_rhs")
    for what, name in (("left", lhs), ("right", rhs)):
        t = ctx.type_of(name)
        if t.rank < 2:
            ctx.fail(f"matmul of a {t.rank}-D {what} operand is not supported (only 2-D and up)")
        if t.dtype != F32:
            ctx.fail(f"matmul of two runtime operands runs float32, the {what} one is {t.dtype.value}")
    return Value(ctx.node("nn.batch_matmul", [lhs, rhs], TensorType(out.shape, F32), hint, adj_x=False,
                          adj_y=False))


@converts("nn.log_softmax")
def log_softmax(ctx, attrs, args, out, hint):
    return _last_axis(ctx, attrs, args, out, hint, "nn.log_softmax")


@converts("nn.softmax")
def softmax(ctx, attrs, args, out, hint):
    return _last_axis(ctx, attrs, args, out, hint, "nn.softmax")


def _last_axis(ctx, attrs, args, out, hint, op):
    """Softmax-like ops run over the last axis: an NHWC value whose axis maps there stays NHWC."""
    x = args[0]
    rank = out.rank
    axis = int(attrs.axis) % rank
    name = x.name
    nhwc = x.nhwc
    if nhwc and channels_last(rank).index(axis) != rank - 1:
        name, nhwc = ctx.model_order(x, hint), False
    elif nhwc:
        axis = rank - 1
    if axis != rank - 1:
        ctx.fail(f"{op.removeprefix('nn.')} over axis {axis} of a {rank}-D tensor is not supported "
                 f"(only the last axis)")
    t = ctx.type_of(name)
    return Value(ctx.node(op, [name], TensorType(t.shape, t.dtype), hint), nhwc)
