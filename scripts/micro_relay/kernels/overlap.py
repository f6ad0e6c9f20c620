"""Lagged in-place: how far below its input a window kernel's output may start (KernelPlan.overlap_delta).

A convolution, depthwise convolution or pooling kernel that walks its output in order reads each input byte
for the last time long before it finishes, so its output may overlap the part of its own input that is
already dead, with no kernel change (TinyEngine, MCUNet). The kernels' memory-access contract
(crt/src/mr_conv2d.c, mr_conv2d_dsp.c, mr_depthwise_conv2d.c, mr_max_pool2d.c, mr_avg_pool2d.c):

- units u = 0, 1, ... are processed in order, over every batch image in turn: output rows for the window
  walks (all reads and writes of row r finish before any work on row r + 1; the row reads input rows
  r*stride - pad_top ... r*stride - pad_top + (k_h - 1)*dilation, clamped to the image), consecutive tiles
  of at most T flattened pixels for the int8 pointwise matrix product (all reads and writes of a tile finish
  before the next tile; the portable path takes POINTWISE_TILE = 16 pixels a tile, the Cortex-M DSP path the
  node's tile_pixels, 16 or fewer by default and more when the compiler gives it room, kernels/arm_dsp/conv2d.py; T is
  the larger of the two);
- unit u writes output bytes [out_hi(u-1), out_hi(u)) and reads nothing below in_lo(u).
Since the tile size may vary, every run of up to T pixels, starting at any pixel, is taken as a unit: a real
tile [s, e) with e - s <= T needs out_base + e*out <= in_base + s*in, which the run [s, min(s + T, pixels))
implies.

The algorithm (max_delta):
1. for every unit, the first output byte past its writes, out_hi(u), and the lowest input byte it reads,
   in_lo(u) (conservatively the first byte of its first in-image input row or tile);
2. walking the units backwards, keep the lowest in_lo of unit u and every later one: the lowest input byte
   still to be read once unit u starts;
3. writing is safe iff every unit writes below every input byte still to be read:
   out_base + out_hi(u) <= in_base + min_{v >= u} in_lo(v) for every u, so
   max_delta = min_u (min_{v >= u} in_lo(v) - out_hi(u)), and any output placed at or below
   in_base + max_delta is safe (or entirely above the input's end, which is no overlap at all).
max_delta is negative (the first unit reads from byte 0 and writes something), at least -out_bytes.

Examples (int8, computed by hand in tests/plan/test_overlap.py): kws pointwise 25x5x64 -> 64 channels: a run
from pixel s reads from 64*s and writes up to 64*(s+16): max_delta = -1024; kws depthwise 3x3 stride 1,
padding 1 on 25x5x64 (320 bytes a row): row r reads from row r - 1 and writes up to the end of row r: -640.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from ..ops._conv_common import Geometry

POINTWISE_TILE = 16  # MR_POINTWISE_TILE in crt/include/micro_relay/conv2d.h (tests/plan/test_overlap.py checks it)


def max_delta(units: Iterable[tuple[int, int]]) -> int:
    """Steps 2 and 3 over (in_lo(u), out_hi(u)) in processing order; relative to the tensors' first bytes."""
    units = list(units)
    if not units:
        raise ValueError("a kernel with no units writes nothing")
    best, still_read = None, None
    for in_lo, out_hi in reversed(units):
        still_read = in_lo if still_read is None else min(still_read, in_lo)
        best = still_read - out_hi if best is None else min(best, still_read - out_hi)
    return best


def row_units(batches: int, in_h: int, in_row_bytes: int, out_h: int, out_row_bytes: int, stride_h: int,
              pad_top: int) -> list[tuple[int, int]]:
    """(in_lo, out_hi) of a window walk, one unit per output row of every batch image."""
    units = []
    for b in range(batches):
        for r in range(out_h):
            first_row = min(max(r * stride_h - pad_top, 0), in_h)
            units.append(((b * in_h + first_row) * in_row_bytes, (b * out_h + r + 1) * out_row_bytes))
    return units


def tile_units(pixels: int, in_pixel_bytes: int, out_pixel_bytes: int,
               tile: int = POINTWISE_TILE) -> list[tuple[int, int]]:
    """(in_lo, out_hi) of the pointwise matrix product over the flattened pixels of all batches: every run of
    up to `tile` pixels from each pixel on, so that tiles of any size up to `tile` are covered."""
    return [(first * in_pixel_bytes, min(first + tile, pixels) * out_pixel_bytes) for first in range(pixels)]


def window_delta(batches: int, in_h: int, in_w: int, in_c: int, out_h: int, out_w: int, out_c: int,
                 stride_h: int, pad_top: int, itemsize: int) -> int:
    """max_delta of a row-ordered window walk over NHWC tensors of one element type."""
    return max_delta(row_units(batches, in_h, in_w * in_c * itemsize, out_h, out_w * out_c * itemsize,
                               stride_h, pad_top))


def pointwise_delta(pixels: int, in_c: int, out_c: int, itemsize: int, tile: int = POINTWISE_TILE) -> int:
    """max_delta of the tiled pointwise matrix product with tiles of at most `tile` pixels."""
    return max_delta(tile_units(pixels, in_c * itemsize, out_c * itemsize, tile))


def window_overlap_delta(g: Geometry, itemsize: int) -> int:
    """The overlap delta of a row-ordered window walk (the generic conv2d and every depthwise path)."""
    return window_delta(g.batches, g.in_h, g.in_w, g.in_c, g.out_h, g.out_w, g.out_c, g.stride_h, g.pad_top,
                        itemsize)
