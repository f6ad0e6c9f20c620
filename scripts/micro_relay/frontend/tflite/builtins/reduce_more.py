"""Reductions beyond MEAN (SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, ARG_MAX, ARG_MIN), L2_NORMALIZATION
and the resizes (RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR)."""

from __future__ import annotations

import numpy as np
import tflite
from tflite.BuiltinOperator import BuiltinOperator as B

from .context import converts, make_node


def _reducer(op_name: str, label: str):
    """A converter of a ReducerOptions operator: input, constant int32 axes (scalar or vector), keep_dims."""
    def convert(ctx, op, inputs, outputs):
        ctx.need_inputs(inputs, 2)
        o = ctx.options(op, tflite.ReducerOptions)
        rank = len(ctx.shape(inputs[0]))
        what = f"{label} axis"
        axes = sorted({ctx.axis(int(a), rank, what) for a in np.ravel(ctx.constant(inputs[1], what))})
        if not axes:
            ctx.fail(f"{label} reduces no axis (an empty axis tensor)")
        keepdims = bool(o.KeepDims()) if o is not None else False
        return [make_node(ctx, op_name, inputs[:1], outputs, axis=tuple(axes), keepdims=keepdims)]

    return convert


for _code, _op, _label in ((B.SUM, "sum", "SUM"), (B.REDUCE_MAX, "max", "REDUCE_MAX"),
                           (B.REDUCE_MIN, "min", "REDUCE_MIN"), (B.REDUCE_PROD, "prod", "REDUCE_PROD")):
    converts(_code)(_reducer(_op, _label))


def _arg(op_name: str, label: str):
    """ARG_MAX / ARG_MIN: input and a constant one-element axis; the index type is the output tensor's."""
    def convert(ctx, op, inputs, outputs):
        ctx.need_inputs(inputs, 2)
        rank = len(ctx.shape(inputs[0]))
        if rank == 0:
            ctx.fail(f"{label} of a scalar")
        values = np.ravel(ctx.constant(inputs[1], f"{label} axis"))
        if values.size != 1:
            ctx.fail(f"{label} axis must hold one value, got {values.size}")
        axis = ctx.axis(int(values[0]), rank, f"{label} axis")
        return [make_node(ctx, op_name, inputs[:1], outputs, axis=axis, keepdims=False)]

    return convert


converts(B.ARG_MAX)(_arg("argmax", "ARG_MAX"))
converts(B.ARG_MIN)(_arg("argmin", "ARG_MIN"))


def _resize(method: str, label: str, options):
    """RESIZE_*: input, a constant int32 [2] size that must match the output tensor's H and W."""
    def convert(ctx, op, inputs, outputs):
        ctx.need_inputs(inputs, 2)
        shape = ctx.rank(inputs[0], 4, f"{label} input")
        size = np.ravel(ctx.constant(inputs[1], f"{label} size"))
        if size.size != 2:
            ctx.fail(f"{label} size must hold 2 values (height, width), got {size.size}")
        height, width = (int(s) for s in size)
        out_shape = ctx.shape(outputs[0])
        if height < 1 or width < 1 or tuple(out_shape) != (shape[0], height, width, shape[3]):
            ctx.fail(f"{label} size {[height, width]} of input {list(shape)} does not give the output shape "
                     f"{list(out_shape)}")
        o = ctx.options(op, options)
        align = bool(o.AlignCorners()) if o is not None else False
        half = bool(o.HalfPixelCenters()) if o is not None else False
        if align and half:
            ctx.fail(f"{label} has both align_corners and half_pixel_centers")
        return [make_node(ctx, "image.resize2d", inputs[:1], outputs, size=(height, width), method=method,
                          align_corners=align, half_pixel_centers=half)]

    return convert


converts(B.RESIZE_NEAREST_NEIGHBOR)(_resize("nearest_neighbor", "RESIZE_NEAREST_NEIGHBOR",
                                            tflite.ResizeNearestNeighborOptions))
converts(B.RESIZE_BILINEAR)(_resize("linear", "RESIZE_BILINEAR", tflite.ResizeBilinearOptions))


@converts(B.L2_NORMALIZATION)
def l2_normalization(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 1)
    shape = ctx.shape(inputs[0])
    if not 1 <= len(shape) <= 4:
        ctx.fail(f"L2_NORMALIZATION input must be 1-D to 4-D, got {list(shape)}")
    o = ctx.options(op, tflite.L2NormOptions)
    if o is not None and ctx.activation(o.FusedActivationFunction()) != "none":
        ctx.fail("L2_NORMALIZATION with a fused activation (TFLite Micro supports none)")
    return [make_node(ctx, "nn.l2_normalize", inputs, outputs, axis=-1)]
