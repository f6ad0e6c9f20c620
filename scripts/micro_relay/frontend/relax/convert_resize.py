"""image.resize2d (ONNX Resize / Upsample, torch's interpolate) onto TFLite's resize semantics.

TFLite knows three coordinate maps (plain, align_corners, half_pixel_centers); ONNX and Relax name more
(coordinate_transformation_mode x rounding_method). Nearest neighbour is decided by the index table: the one
the model's mode gives (numpy, as onnxruntime computes it) must equal one TFLite map's table on both axes, so
e.g. half_pixel with round_prefer_floor is taken exactly when no output pixel sits on a tie. Bilinear maps one
to one (half_pixel and pytorch_half_pixel to half_pixel_centers, align_corners, asymmetric to neither);
cubic and the crop modes are refused.
"""

from __future__ import annotations

import numpy as np

from ...ir.types import TensorType
from ...ops._resize import nearest_table
from .context import TO_NHWC, Value
from .converters import converts

_ROUND = {
    "round": lambda v: np.where(v >= 0, np.floor(v + 0.5), -np.floor(-v + 0.5)),
    "round_prefer_floor": lambda v: np.ceil(v - 0.5), "round_prefer_ceil": lambda v: np.floor(v + 0.5),
    "floor": np.floor, "ceil": np.ceil,
}
_TFLITE_MAPS = ((False, False), (True, False), (False, True))  # (align_corners, half_pixel_centers)


def _source(mode: str, size_in: int, size_out: int) -> np.ndarray | None:
    """Each output index's position in the input, as ONNX's coordinate_transformation_mode defines it."""
    x = np.arange(size_out, dtype=np.float64)
    scale = size_in / size_out
    if mode == "half_pixel" or (mode == "pytorch_half_pixel" and size_out > 1):
        return (x + 0.5) * scale - 0.5
    if mode == "pytorch_half_pixel":
        return np.zeros(size_out)
    if mode == "align_corners":
        return x * ((size_in - 1) / (size_out - 1)) if size_out > 1 else np.zeros(size_out)
    if mode == "asymmetric":
        return x * scale
    if mode == "tf_half_pixel_for_nn":
        return (x + 0.5) * scale
    return None


def _nearest_map(ctx, mode: str, rounding: str, sizes_in, sizes_out) -> tuple[bool, bool]:
    if rounding not in _ROUND:
        ctx.fail(f"resize rounding '{rounding}' is not supported")
    wanted = []
    for size_in, size_out in zip(sizes_in, sizes_out):
        source = _source(mode, size_in, size_out)
        if source is None:
            ctx.fail(f"resize coordinate mode '{mode}' is not supported")
        wanted.append(np.clip(_ROUND[rounding](source), 0, size_in - 1).astype(int).tolist())
    for align, half in _TFLITE_MAPS:
        if all(nearest_table(i, o, align, half) == w for i, o, w in zip(sizes_in, sizes_out, wanted)):
            return align, half
    ctx.fail(f"nearest resize with coordinate mode '{mode}' and rounding '{rounding}' from {list(sizes_in)} to "
             f"{list(sizes_out)} picks pixels no TFLite resize picks")


def _linear_map(ctx, mode: str, sizes_out) -> tuple[bool, bool]:
    if mode == "half_pixel" or (mode == "pytorch_half_pixel" and min(sizes_out) > 1):
        return False, True
    if mode == "align_corners":
        return True, False
    if mode == "asymmetric":
        return False, False
    ctx.fail(f"bilinear resize with coordinate mode '{mode}' is not supported")


@converts("image.resize2d")
def resize2d(ctx, attrs, args, out, hint):
    x = args[0]
    if not isinstance(x, Value):
        ctx.fail("resize of a constant was not folded")
    if str(attrs.layout) != "NCHW":
        ctx.fail(f"resize layout {attrs.layout} is not supported (NCHW)")
    method = str(attrs.method)
    mode = str(attrs.coordinate_transformation_mode)
    data = ctx.nhwc_order(x, hint)
    t = ctx.type_of(data)
    sizes_in, sizes_out = t.shape[1:3], out.shape[2:]
    if method == "nearest_neighbor":
        align, half = _nearest_map(ctx, mode, str(attrs.rounding_method) or "round", sizes_in, sizes_out)
    elif method == "linear":
        align, half = _linear_map(ctx, mode, sizes_out)
    else:
        ctx.fail(f"resize method '{method}' is not supported (nearest, linear)")
    shape = tuple(out.shape[a] for a in TO_NHWC)
    return Value(ctx.node("image.resize2d", [data], TensorType(shape, t.dtype, t.quant), hint, size=tuple(sizes_out),
                          method=method, align_corners=align, half_pixel_centers=half), nhwc=True)
