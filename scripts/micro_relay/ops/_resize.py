"""The per-row and per-column source tables of image.resize2d, computed at compile time exactly as TFLite
Micro computes them per pixel (R/resize_nearest_neighbor.h, R/resize_bilinear.h), so the kernels only index.

- nearest: scale = (in-1)/(out-1) with align_corners (out > 1), else in/out, in float; src = round((i + off)
  * scale) with align_corners, else floor(...), in float (off = 0.5 with half_pixel_centers); min(src, in-1),
  then max(src, 0) with half_pixel_centers.
- bilinear, float: the same float scale; v = (i + 0.5) * scale - 0.5 with half_pixel_centers, else i * scale;
  lo = max(floor(v), 0), hi = min(ceil(v), in-1), frac = v - lo (float; may fall outside [0, 1] where lo = hi).
- bilinear, integer (ResizeBilinearInteger): scale_10 = (1024 * in + out / 2) / out (align_corners:
  (1024 * (in-1) + (out-1) / 2) / (out-1)); v = i * scale_10 (+ scale_10 / 2 - 512 with half_pixel_centers);
  lo = max(v / 1024, 0), hi = min((v + 1023) / 1024, in-1), C division; the weight of hi is v - 1024 * lo.
Every index is checked to lie in the input: TFLite Micro reads outside it for some extreme upsamplings
(e.g. 1 -> 600 rows without half_pixel_centers, where the rounded integer scale overshoots).
"""

from __future__ import annotations

import numpy as np

F = np.float32
INT32_MAX = (1 << 31) - 1


def _float_scale(size_in: int, size_out: int, align_corners: bool) -> np.float32:
    if align_corners and size_out > 1:
        return F(size_in - 1) / F(size_out - 1)
    return F(size_in) / F(size_out)


def nearest_table(size_in: int, size_out: int, align_corners: bool, half_pixel: bool) -> list[int]:
    scale, offset = _float_scale(size_in, size_out, align_corners), F(0.5 if half_pixel else 0.0)
    table = []
    for i in range(size_out):
        v = (F(i) + offset) * scale
        src = _round_half_away(v) if align_corners else int(np.floor(v))
        src = min(src, size_in - 1)
        table.append(max(src, 0) if half_pixel else src)
    return table


def _round_half_away(v: np.float32) -> int:
    """std::round of a float (exact in double)."""
    f = float(v)
    return int(np.floor(f + 0.5)) if f >= 0 else -int(np.floor(-f + 0.5))


def bilinear_float_table(size_in: int, size_out: int, align_corners: bool, half_pixel: bool):
    """(lo, hi, frac) per output index."""
    scale = _float_scale(size_in, size_out, align_corners)
    lo, hi, frac = [], [], []
    for i in range(size_out):
        v = (F(i) + F(0.5)) * scale - F(0.5) if half_pixel else F(i) * scale
        low = max(int(np.floor(v)), 0)
        lo.append(low)
        hi.append(min(int(np.ceil(v)), size_in - 1))
        frac.append(F(v - F(low)))
    return lo, hi, np.array(frac, dtype=np.float32)


def _cdiv(a: int, b: int) -> int:
    """C's truncating integer division."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def integer_scale(size_in: int, size_out: int, align_corners: bool) -> int:
    if align_corners and size_out > 1:
        return ((1 << 10) * (size_in - 1) + (size_out - 1) // 2) // (size_out - 1)
    return ((1 << 10) * size_in + size_out // 2) // size_out


def bilinear_integer_table(size_in: int, size_out: int, align_corners: bool, half_pixel: bool):
    """(lo, hi, weight of hi in 1/1024) per output index."""
    scale = integer_scale(size_in, size_out, align_corners)
    lo, hi, weight = [], [], []
    for i in range(size_out):
        v = i * scale + scale // 2 - (1 << 9) if half_pixel else i * scale
        low = max(_cdiv(v, 1 << 10), 0)
        lo.append(low)
        hi.append(min(_cdiv(v + (1 << 10) - 1, 1 << 10), size_in - 1))
        weight.append(v - (1 << 10) * low)
    return lo, hi, weight


def integer_overflows(size_in: int, size_out: int, align_corners: bool) -> bool:
    """Whether ResizeBilinearInteger's int32 coordinate arithmetic overflows for these sizes."""
    scale = integer_scale(size_in, size_out, align_corners)
    return (1 << 10) * size_in + size_out > INT32_MAX or size_out * scale + scale > INT32_MAX
