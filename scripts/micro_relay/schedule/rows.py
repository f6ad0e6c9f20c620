"""The row algebra of a chain run row by row: the walk crt/src/mr_rows.c makes (micro_relay/rows.h), followed here
to size its rolling buffers and to find where its output may start.

A chain is a sequence of window layers (convolutions, depthwise convolutions) of one image, each reading only
the one before it. window(g, [lo, hi)) = [max(lo*s - pad_top, 0), min((hi-1)*s - pad_top + (k-1)*d + 1, in_h))
is what a window walk reads for its output rows [lo, hi). Each layer makes at most chunk[i] rows per call of
its kernel; the last layer's rows are made in order, a chunk at a time, and any layer's rows on demand: to make
rows [x0, x1) of layer i,
  1. layer i-1 drops its rows below window(layer i, [x0, x1))'s first (the rest move to the front of its buffer);
  2. while layer i-1 lacks rows of that window, it makes the next of them, up to a chunk of its own at once, in
     the same way;
  3. layer i's kernel makes rows [x0, x1) from the rows layer i-1 holds.
So layer i-1's rolling buffer holds at most one window of the rows layer i makes at once (the most `walk` sees
it hold), and every row of every layer is made once. The last layer's rows are written at the end of their step,
and from that step on the chain's input is read no lower than the lowest row layer 0 reads in it: the units
kernels/overlap.py turns into how far below its input the output may start. Larger chunks make fewer, larger
kernel calls (each call has its own setup) for larger rolling buffers.

Worked example (tests/schedule/test_rows.py): depthwise 3x3 stride 1 pad 1 then pointwise, 25x5x64 int8. Row r:
the pointwise computes row r and reads depthwise row r, which reads input rows [r-1, r+2). The depthwise output
holds 1 row (320 B) and never exists whole (8,000 B); the input is read from row r-1 on, output row r ends at
320*(r+1): delta -640, as for the depthwise alone.

Patches (grid rows x columns of the last layer's output, `patches`): the walk runs once per patch, on the chain
cut to it (cut_chain): going back from the patch, each layer's output rectangle is the window its consumer reads
and its input the window it reads, clamped to the image, and its geometry says so (in and out sizes, pad_top
and pad_left where its first window starts). The rows and columns two patches' windows share are computed for
each (recompute_macs counts them), and every rolling buffer is as wide as its widest patch: a grid trades
multiply-accumulates for a narrower working set, and patch rows let the output overwrite the input rows the
rows above have finished with. One column patch keeps every layer's whole width (no column is cut, as without
patches); with more, the first layer's rows of a call are gathered into a compact stage and the last layer's
rows made in another before they are written into the output's columns (stage_bytes).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from ..kernels.overlap import max_delta
from ..ops._conv_common import Geometry

BAND_PIXELS = 16  # output pixels per call of the last layer at least: MR_POINTWISE_TILE, the int8 matrix tile


def _span(stride: int, pad: int, k: int, dil: int, size: int, lo: int, hi: int) -> tuple[int, int]:
    first = min(max(lo * stride - pad, 0), size)
    end = min((hi - 1) * stride - pad + (k - 1) * dil + 1, size)
    return first, max(end, first)


def window(g: Geometry, lo: int, hi: int) -> tuple[int, int]:
    """The input rows [first, end) a window walk reads for its output rows [lo, hi), clamped to the image."""
    return _span(g.stride_h, g.pad_top, g.k_h, g.dil_h, g.in_h, lo, hi)


def window_cols(g: Geometry, lo: int, hi: int) -> tuple[int, int]:
    """The input columns [first, end) the windows of output columns [lo, hi) read, clamped to the image."""
    return _span(g.stride_w, g.pad_left, g.k_w, g.dil_w, g.in_w, lo, hi)


@dataclass(frozen=True)
class Patch:
    """One patch of the last layer's output (rows and columns), the chain cut to it, and where its first layer's
    cut input starts in the chain's input."""

    rows: tuple[int, int]
    cols: tuple[int, int]
    chain: tuple[Geometry, ...]
    in_row: int
    in_col: int


def cut_chain(chain: tuple[Geometry, ...], rows: tuple[int, int], cols: tuple[int, int],
              narrow: bool) -> Patch:
    """mr_rows.c cut_chain: every layer cut to what the patch needs of it; narrow: columns are cut too."""
    (r0, r1), (c0, c1) = rows, cols
    cut = []
    for g in reversed(chain):
        a, b = window(g, r0, r1)
        ca, cb = window_cols(g, c0, c1) if narrow else (0, g.in_w)
        change = dict(in_h=b - a, out_h=r1 - r0, pad_top=a - (r0 * g.stride_h - g.pad_top))
        if narrow:
            change.update(in_w=cb - ca, out_w=c1 - c0, pad_left=ca - (c0 * g.stride_w - g.pad_left))
        cut.insert(0, replace(g, **change))
        r0, r1, c0, c1 = a, b, ca, cb
    return Patch(rows, cols, tuple(cut), r0, c0)


def cuts(size: int, parts: int) -> tuple[int, ...]:
    """[0, size) cut into `parts` spans as even as whole positions allow."""
    return tuple(k * size // parts for k in range(parts + 1))


@lru_cache(maxsize=4096)
def patches(chain: tuple[Geometry, ...], grid: tuple[int, int] = (1, 1)) -> tuple[Patch, ...]:
    """The patches of a grid of the last layer's output, in the order mr_rows runs them (rows, then columns)."""
    last = chain[-1]
    row_cuts, col_cuts = cuts(last.out_h, grid[0]), cuts(last.out_w, grid[1])
    return tuple(cut_chain(chain, (row_cuts[i], row_cuts[i + 1]), (col_cuts[j], col_cuts[j + 1]), grid[1] > 1)
            for i in range(grid[0]) for j in range(grid[1]))


def recompute_macs(chain: tuple[Geometry, ...], grid: tuple[int, int]) -> int:
    """The multiply-accumulates a grid computes more than the chain once: its patches' shared halo."""
    def macs(g: Geometry) -> int:
        return g.out_h * g.out_w * g.out_c * g.k_h * g.k_w * g.filter_c
    return sum(macs(g) for p in patches(chain, grid) for g in p.chain) - sum(macs(g) for g in chain)


@dataclass(frozen=True)
class Step:
    """One chunk of the last layer's rows: the most rows each other layer held during it, and the lowest input
    row it read (None: layer 0 made no row)."""

    rows: tuple[int, int]
    held: tuple[int, ...]
    lowest_read: int | None


def chunks_of(chain: tuple[Geometry, ...], band: int = 1) -> tuple[int, ...]:
    """Rows per call of each layer: `band` for the last, and for each layer before it as many rows as one band
    of the last layer's asks of it in the steady state (band times the ratio of their heights, rounded up); one
    row a call everywhere for band 1, which holds the fewest rows."""
    last = chain[-1].out_h
    if band == 1:
        return (1,) * len(chain)
    return tuple(max(1, -(-band * g.out_h // last)) for g in chain[:-1]) + (band,)


@lru_cache(maxsize=16384)
def walk(chain: tuple[Geometry, ...], chunks: tuple[int, ...]) -> tuple[Step, ...]:
    """Steps 1 to 3 for every chunk of the last layer's rows, as mr_rows makes them (kept: the compiler asks for
    the same chain's walk for its buffers, its overlap and its cost)."""
    n, rows = len(chain), chain[-1].out_h
    held_lo, held_end = [0] * n, [0] * n
    steps = []
    for row in range(0, rows, chunks[-1]):
        most, lowest = [0] * (n - 1), None
        lo, hi = [0] * n, [0] * n
        lo[n - 1], hi[n - 1], i = row, min(row + chunks[-1], rows), n - 1
        while True:
            a, b = window(chain[i], lo[i], hi[i])
            if i > 0:
                if a > held_lo[i - 1]:
                    held_lo[i - 1], held_end[i - 1] = a, max(held_end[i - 1], a)
                if held_end[i - 1] < b:
                    lo[i - 1] = held_end[i - 1]
                    hi[i - 1] = min(b, lo[i - 1] + chunks[i - 1])
                    i -= 1
                    continue
            else:
                lowest = a if lowest is None else min(lowest, a)
            if i == n - 1:
                break
            held_end[i] = hi[i]
            most[i] = max(most[i], held_end[i] - held_lo[i])
            i += 1
        steps.append(Step((row, hi[n - 1]), tuple(most), lowest))
    return tuple(steps)


def ring_rows(chain: tuple[Geometry, ...], chunks: tuple[int, ...]) -> tuple[int, ...]:
    """Rows of the rolling buffer of each layer's output but the last's: the most it ever holds."""
    return tuple(max(column) for column in zip(*(step.held for step in walk(chain, chunks))))


def ring_bytes(chain: tuple[Geometry, ...], itemsize: int, chunks: tuple[int, ...],
               grid: tuple[int, int] = (1, 1)) -> tuple[int, ...]:
    """Bytes of each rolling buffer: the most rows its layer holds in any patch, as wide as that patch cuts it."""
    found = [0] * (len(chain) - 1)
    for p in patches(chain, grid):
        for i, (held, g) in enumerate(zip(ring_rows(p.chain, chunks), p.chain)):
            found[i] = max(found[i], held * g.out_w * g.out_c * itemsize)
    return tuple(found)


def stage_bytes(chain: tuple[Geometry, ...], itemsize: int, chunks: tuple[int, ...],
                grid: tuple[int, int]) -> tuple[int, int]:
    """With column patches, the bytes of the stage the first layer's rows of a call are gathered into and of the
    stage the last layer's rows are made in; (0, 0) for one column patch."""
    if grid[1] == 1:
        return 0, 0
    stage_in = stage_out = 0
    for p in patches(chain, grid):
        first, last = p.chain[0], p.chain[-1]
        span = min(first.in_h, (chunks[0] - 1) * first.stride_h + (first.k_h - 1) * first.dil_h + 1)
        stage_in = max(stage_in, span * first.in_w * first.in_c * itemsize)
        stage_out = max(stage_out, min(chunks[-1], last.out_h) * last.out_w * last.out_c * itemsize)
    return stage_in, stage_out


def units(chain: tuple[Geometry, ...], itemsize: int, chunks: tuple[int, ...],
          grid: tuple[int, int] = (1, 1)) -> list[tuple[int, int]]:
    """(lowest input byte the step reads, end of the output written) per chunk of the last layer's rows, patch
    after patch; a step in which layer 0 makes no row reads nothing (the input's end stands for it)."""
    first, last = chain[0], chain[-1]
    in_pixel, out_pixel = first.in_c * itemsize, last.out_c * itemsize
    found = []
    for p in patches(chain, grid):
        for step in walk(p.chain, chunks):
            read = (first.in_h * first.in_w if step.lowest_read is None
                    else (p.in_row + step.lowest_read) * first.in_w + p.in_col)
            written = (p.rows[0] + step.rows[1] - 1) * last.out_w + p.cols[1]
            found.append((read * in_pixel, written * out_pixel))
    return found


def overlap_delta(chain: tuple[Geometry, ...], itemsize: int, chunks: tuple[int, ...],
                  grid: tuple[int, int] = (1, 1)) -> int:
    """How far below its input the chain's output may start (kernels/overlap.py max_delta)."""
    return max_delta(units(chain, itemsize, chunks, grid))


def band_of(chain: tuple[Geometry, ...]) -> int:
    """The last layer's rows per step: enough for BAND_PIXELS output pixels a call, so that a layer whose rows are
    narrow (1-D over H, small maps) does not pay its kernel's setup once per row."""
    return max(1, min(chain[-1].out_h, -(-BAND_PIXELS // chain[-1].out_w)))


def row_by_row_refusal(g: Geometry) -> str | None:
    """Why a layer cannot be cut to rows (None: it can): more than one image, or an output row reading no image
    row at all (padding wider than the window), which a cut geometry could not express."""
    if g.batches != 1:
        return f"{g.batches} images"
    if any(window(g, r, r + 1)[0] == window(g, r, r + 1)[1] for r in range(g.out_h)):
        return "an output row reads only padding"
    return None


def column_refusal(g: Geometry) -> str | None:
    """Why a layer cannot be cut to columns (None: it can): an output column reading no image column."""
    if any(window_cols(g, c, c + 1)[0] == window_cols(g, c, c + 1)[1] for c in range(g.out_w)):
        return "an output column reads only padding"
    return None
