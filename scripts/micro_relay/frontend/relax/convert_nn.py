"""Converters for operators with weights or windows: convolutions, pooling, matmul, softmax.

NCHW convolutions and pools become the NHWC ops of the TFLite path. Weights are transposed here:
OIHW -> OHWI for a convolution (grouped or not), OIHW -> (1, KH, KW, O) for a depthwise one (groups equal to
the input channels). A QDQ model's weights arrive as `QConst` and keep their integer type and per-channel
scales through the transpose (the channel axis moves with its data).
"""

from __future__ import annotations

import numpy as np

from ...ir.types import DType, TensorType
from .context import TO_NHWC, QConst, Value
from .converters import converts

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


@converts("nn.conv2d")
def conv2d(ctx, attrs, args, out, hint):
    if str(attrs.data_layout) != "NCHW" or str(attrs.kernel_layout) != "OIHW" or str(attrs.out_layout) != "NCHW":
        ctx.fail(f"conv2d layout {attrs.data_layout}/{attrs.kernel_layout} is not supported (NCHW/OIHW)")
    x, w = args[0], _weight(ctx, args[1], "convolution weight")
    data = ctx.nhwc_order(x, hint)
    in_c = ctx.type_of(data).shape[3]
    out_c, per_group, kh, kw = _shape(w)
    groups = int(attrs.groups)
    common = dict(strides=_ints(attrs.strides), dilation=_ints(attrs.dilation), padding=_ints(attrs.padding))
    out_type = TensorType(_nhwc_shape(out.shape), F32)
    if groups > 1 and groups == in_c and per_group == 1:
        weight = ctx.tensor_of(_transposed(w, (1, 2, 3, 0)), f"{hint}_w")
        name = ctx.node("nn.depthwise_conv2d", [data, weight, ""], out_type, hint,
                        depth_multiplier=out_c // in_c, **common)
    else:
        weight = ctx.tensor_of(_transposed(w, (0, 2, 3, 1)), f"{hint}_w")
        name = ctx.node("nn.conv2d", [data, weight, ""], out_type, hint, **common)
    return Value(name, nhwc=True)


def _pool(op):
    def convert(ctx, attrs, args, out, hint):
        if str(attrs.layout) != "NCHW":
            ctx.fail(f"pooling layout {attrs.layout} is not supported (NCHW)")
        if any(int(d) != 1 for d in attrs.dilation):
            ctx.fail("dilated pooling is not supported")
        padding = _ints(attrs.padding)
        if bool(attrs.ceil_mode):
            ctx.fail("ceil_mode pooling is not supported")
        if op == "nn.avg_pool2d" and bool(attrs.count_include_pad) and any(padding):
            ctx.fail("average pooling that counts padding (count_include_pad) is not supported")
        data = ctx.nhwc_order(args[0], hint)
        name = ctx.node(op, [data], TensorType(_nhwc_shape(out.shape), F32), hint,
                        pool_size=_ints(attrs.pool_size), strides=_ints(attrs.strides), padding=padding)
        return Value(name, nhwc=True)

    return convert


converts("nn.max_pool2d")(_pool("nn.max_pool2d"))
converts("nn.avg_pool2d")(_pool("nn.avg_pool2d"))


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
    """x @ B with a constant B (K, N): a dense layer with weight B^T (N, K)."""
    x, b = args
    if not isinstance(x, Value):
        ctx.fail("matmul needs a runtime left operand")
    b = _weight(ctx, b, "matmul right operand")
    if len(_shape(b)) != 2:
        ctx.fail(f"matmul by a {len(_shape(b))}-D constant is not supported (only 2-D)")
    data = ctx.model_order(x, hint)
    weight = ctx.tensor_of(_transposed(b, (1, 0)), f"{hint}_w")
    name = ctx.node("nn.dense", [data, weight, ""], TensorType(out.shape, F32), hint, output_shape=out.shape)
    return Value(name)


@converts("nn.softmax")
def softmax(ctx, attrs, args, out, hint):
    x = args[0]
    rank = out.rank
    axis = int(attrs.axis) % rank
    name = x.name
    nhwc = x.nhwc
    if nhwc and TO_NHWC.index(axis) != rank - 1:
        name, nhwc = ctx.model_order(x, hint), False
    elif nhwc:
        axis = rank - 1
    if axis != rank - 1:
        ctx.fail(f"softmax over axis {axis} of a {rank}-D tensor is not supported (only the last axis)")
    t = ctx.type_of(name)
    return Value(ctx.node("nn.softmax", [name], TensorType(t.shape, t.dtype), hint), nhwc)
