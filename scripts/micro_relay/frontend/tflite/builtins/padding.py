"""TFLite's SAME/VALID padding made explicit: (top, left, bottom, right) pads computed as TFLite does
(the odd pixel goes to the bottom/right), with the output size checked against the input."""

from __future__ import annotations

from tflite.Padding import Padding


def same_or_valid(padding: int, in_size: int, kernel: int, stride: int, dilation: int, out_size: int) -> tuple[int, int]:
    """TFLite's ComputePaddingHeightWidth for one axis: (before, after)."""
    effective = (kernel - 1) * dilation + 1
    if padding == Padding.SAME:
        total = max(0, (out_size - 1) * stride + effective - in_size)
        return total // 2, total - total // 2
    return 0, max(0, (out_size - 1) * stride + effective - in_size)


def conv_out_size(padding: int, in_size: int, kernel: int, stride: int) -> int:
    """TFLite's ComputeOutSize with dilation 1."""
    if padding == Padding.SAME:
        return (in_size + stride - 1) // stride
    return (in_size - kernel + stride) // stride


def explicit_pads(ctx, padding, in_shape, out_shape, kh, kw, sh, sw, dh=1, dw=1) -> tuple[int, int, int, int]:
    if padding not in (Padding.SAME, Padding.VALID):
        ctx.fail(f"unknown padding type {padding}")
    for what, values in (("filter size", (kh, kw)), ("strides", (sh, sw)), ("dilation", (dh, dw))):
        if min(values) < 1:
            ctx.fail(f"{what} {list(values)} must be positive")
    # The padding is derived from the output size, so a hostile output tensor would ask for any padding at
    # all (millions of rows): it must be the size TFLite's ComputeOutSize gives, as converters write it.
    for axis, kernel, stride, dilation in ((1, kh, sh, dh), (2, kw, sw, dw)):
        effective = (kernel - 1) * dilation + 1
        expected = (in_shape[axis] + stride - (1 if padding == Padding.SAME else effective)) // stride
        if out_shape[axis] != expected:
            ctx.fail(f"output {'height' if axis == 1 else 'width'} {out_shape[axis]} is not the {expected} that "
                     f"{'SAME' if padding == Padding.SAME else 'VALID'} padding gives")
    top, bottom = same_or_valid(padding, in_shape[1], kh, sh, dh, out_shape[1])
    left, right = same_or_valid(padding, in_shape[2], kw, sw, dw, out_shape[2])
    return (top, left, bottom, right)
