"""The row algebra of chains run row by row (schedule/rows.py) on named shapes, worked out by hand, and the C walk
(crt/src/mr_rows.c) held to the rolling buffers it sizes: a harness whose layer calls check every row they read
and write against the buffers the compiler planned."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from micro_relay.ops._conv_common import Geometry
from micro_relay.schedule import chains, rows

ROOT = Path(__file__).resolve().parents[2]


def geometry(h, w, c, out_c, k=1, stride=1, pad=0, out_h=None, out_w=None, dil=1, batches=1, depthwise=False):
    out_h = out_h if out_h is not None else (h + 2 * pad - dil * (k - 1) - 1) // stride + 1
    out_w = out_w if out_w is not None else (w + 2 * pad - dil * (k - 1) - 1) // stride + 1
    return Geometry(batches, h, w, c, out_h, out_w, out_c, k, k, 1 if depthwise else c, stride, stride, dil, dil,
                    pad, pad)


# kws_ref_model's depthwise-separable pair: depthwise 3x3 stride 1 pad 1 then pointwise, 25x5x64 int8
KWS_PAIR = (geometry(25, 5, 64, 64, 3, 1, 1, depthwise=True), geometry(25, 5, 64, 64))
# an inverted residual on 12x12x16: expand 1x1 to 96, depthwise 3x3 pad 1, project 1x1 to 16
INVERTED_RESIDUAL = (geometry(12, 12, 16, 96), geometry(12, 12, 96, 96, 3, 1, 1, depthwise=True),
                     geometry(12, 12, 96, 16))
# a 3-layer head: conv 3x3 stride 2 pad 1 on 9x9x1 to 5x5x4, depthwise 3x3 pad 1, pointwise to 8
HEAD = (geometry(9, 9, 1, 4, 3, 2, 1), geometry(5, 5, 4, 4, 3, 1, 1, depthwise=True), geometry(5, 5, 4, 8))


def test_window_reads_the_rows_of_the_taps_inside_the_image():
    g = HEAD[0]  # row x reads input rows 2x - 1 .. 2x + 1
    assert rows.window(g, 0, 1) == (0, 2)
    assert rows.window(g, 2, 3) == (3, 6)
    assert rows.window(g, 4, 5) == (7, 9)
    assert rows.window(g, 1, 3) == (1, 6)


def test_depthwise_separable_pair_holds_one_row_of_the_depthwise():
    """Row r: the pointwise reads depthwise row r, which reads input rows r-1 .. r+1. The depthwise output (8,000 B)
    is one row of 320 B; the output may start 640 B (two rows) below the input, as for the depthwise alone."""
    chunks = rows.chunks_of(KWS_PAIR)
    assert chunks == (1, 1)
    assert rows.ring_rows(KWS_PAIR, chunks) == (1,)
    assert rows.ring_bytes(KWS_PAIR, 1, chunks) == (320,)
    assert rows.overlap_delta(KWS_PAIR, 1, chunks) == -640


def test_inverted_residual_holds_three_expanded_rows():
    """The expanded tensor (12x12x96, 13,824 B) is 3 rows of 1,152 B for the depthwise, the depthwise's one row.
    Step 0 makes expanded rows 0 and 1 (reading input rows 0, 1); step r >= 1 makes expanded row r+1, reading input
    row r+1, and writes output row r (192 B a row): only step 0 writes below what is still to be read, one output
    row: delta -192."""
    chunks = rows.chunks_of(INVERTED_RESIDUAL)
    assert rows.ring_rows(INVERTED_RESIDUAL, chunks) == (3, 1)
    assert rows.ring_bytes(INVERTED_RESIDUAL, 1, chunks) == (3456, 1152)
    assert rows.overlap_delta(INVERTED_RESIDUAL, 1, chunks) == -192


def test_three_layer_head_with_a_stride_2_stem():
    """Input rows 9 B, output rows 40 B. Step r (output row r) makes the conv rows the depthwise row r lacks:
    step 0 conv rows 0, 1 (lowest input row read 0), step 1 row 2 (reads from 3), step 2 row 3 (from 5), step 3
    row 4 (from 7), step 4 none. Suffix minima of the rows read, in bytes: 0, 27, 45, 63, 81 (nothing left: the
    input's end); minus each step's output end 40, 80, 120, 160, 200: -40, -53, -75, -97, -119: delta -119."""
    chunks = rows.chunks_of(HEAD)
    assert [step.lowest_read for step in rows.walk(HEAD, chunks)] == [0, 3, 5, 7, None]
    assert rows.units(HEAD, 1, chunks) == [(0, 40), (27, 80), (45, 120), (63, 160), (81, 200)]
    assert rows.overlap_delta(HEAD, 1, chunks) == -119
    assert rows.ring_rows(HEAD, chunks) == (3, 1)


def test_patches_of_the_three_layer_head_with_their_halo():
    """A 2x2 grid of the head's 5x5 output: rows and columns cut at 2. Patch (0, 0): the pointwise makes [0, 2) x
    [0, 2), the depthwise reads conv rows and columns [0, 3) (the top and left taps are padding), the conv reads
    input [0, 6) x [0, 6) with its padding 1 kept. Patch (1, 1): the pointwise [2, 5) x [2, 5), the depthwise
    reads conv [1, 5) x [1, 5) (its bottom and right taps past row 4 are padding: the cut image ends there), the
    conv reads input [1, 9) x [1, 9) with no padding left. The conv's rows and columns 1, 2 are made by both
    patches: its output 3 + 4 = 7 a side for 5, 49 pixels for 25, 24 more of 4 channels x 9 taps = 864 MACs; the
    depthwise and pointwise patches do not overlap. Its rolling buffer: 3 rows of the widest cut, 4 columns x 4
    channels = 48 B (60 B uncut); the depthwise's 1 row of 3 columns = 12 B (20 B)."""
    first, *_, last = rows.patches(HEAD, (2, 2))
    assert (first.rows, first.cols, first.in_row, first.in_col) == ((0, 2), (0, 2), 0, 0)
    assert [(g.in_h, g.in_w, g.out_h, g.out_w, g.pad_top, g.pad_left) for g in first.chain] == [
        (6, 6, 3, 3, 1, 1), (3, 3, 2, 2, 1, 1), (2, 2, 2, 2, 0, 0)]
    assert (last.rows, last.cols, last.in_row, last.in_col) == ((2, 5), (2, 5), 1, 1)
    assert [(g.in_h, g.in_w, g.out_h, g.out_w, g.pad_top, g.pad_left) for g in last.chain] == [
        (8, 8, 4, 4, 0, 0), (4, 4, 3, 3, 0, 0), (3, 3, 3, 3, 0, 0)]
    assert rows.recompute_macs(HEAD, (2, 2)) == 864
    assert rows.recompute_macs(HEAD, (1, 1)) == 0
    assert rows.ring_bytes(HEAD, 1, (1, 1, 1), (2, 2)) == (48, 12)
    assert rows.ring_bytes(HEAD, 1, (1, 1, 1)) == (60, 20)



def test_a_band_of_two_rows_makes_two_rows_a_call():
    """Band 2 on the pair: the depthwise makes 2 rows a call and holds 2; step r writes output rows 2r, 2r+1
    after reading input from row 2r - 1: delta -960 (three rows)."""
    chunks = rows.chunks_of(KWS_PAIR, 2)
    assert chunks == (2, 2)
    assert rows.ring_rows(KWS_PAIR, chunks) == (2,)
    assert rows.overlap_delta(KWS_PAIR, 1, chunks) == -960


def test_band_covers_sixteen_output_pixels():
    assert rows.band_of(KWS_PAIR) == 4  # 5 pixels a row
    assert rows.band_of((geometry(99, 1, 10, 16, 1), geometry(99, 1, 16, 16, 1))) == 16
    assert rows.band_of(HEAD) == 4  # 5 pixels a row, 5 rows
    assert rows.band_of((geometry(48, 48, 8, 8, 1), geometry(48, 48, 8, 16, 1))) == 1


def test_layers_that_cannot_be_cut_to_rows():
    assert rows.row_by_row_refusal(geometry(4, 4, 1, 1, 3, 1, 1, batches=2)) == "2 images"
    padded = Geometry(1, 4, 4, 1, 6, 4, 1, 3, 3, 1, 1, 1, 1, 1, 3, 1)  # row 0's taps all lie above the image
    assert rows.row_by_row_refusal(padded) == "an output row reads only padding"
    assert rows.row_by_row_refusal(HEAD[0]) is None


def test_max_stages_matches_the_runtime():
    header = (ROOT / "crt" / "include" / "micro_relay" / "rows.h").read_text()
    assert re.search(r"#define MR_ROWS_MAX_STAGES (\d+)", header).group(1) == str(chains.MAX_STAGES)


HARNESS = r"""
#include <stdio.h>
#include <string.h>
#include "micro_relay/rows.h"

static const mr_conv_geometry geo[] = {%(geometries)s};
static const int32_t ring_bytes[] = {%(rings)s};
static const int32_t row_cuts[] = {%(row_cuts)s}, col_cuts[] = {%(col_cuts)s};
static mr_rows_stage stages[%(count)d];
static uint8_t scratch[%(scratch)d + 1];
static uint8_t in_buf[%(in_bytes)d + 1], out_buf[%(out_bytes)d + 1];
static int32_t calls, bad;

static int call(int32_t stage, const mr_conv_geometry *g, const void *in, void *out, void *kscratch)
{
    const uint8_t *src_lo = stage == 0 ? (%(narrow)d ? scratch + %(stage_in)d : in_buf)
                                       : scratch + stages[stage - 1].ring_offset;
    const uint8_t *src_hi = stage == 0 ? (%(narrow)d ? src_lo + %(stage_in_bytes)d : in_buf + %(in_bytes)d)
                                       : src_lo + ring_bytes[stage - 1];
    uint8_t *dst_lo = stage == %(last)d ? (%(narrow)d ? scratch + %(stage_out)d : out_buf)
                                        : scratch + stages[stage].ring_offset;
    uint8_t *dst_hi = stage == %(last)d ? (%(narrow)d ? dst_lo + %(stage_out_bytes)d : out_buf + %(out_bytes)d)
                                        : dst_lo + ring_bytes[stage];
    const size_t read = (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    const size_t written = (size_t)g->out_h * (size_t)g->out_w * (size_t)g->out_c;
    (void)kscratch;
    calls++;
    if ((const uint8_t *)in < src_lo || (const uint8_t *)in + read > src_hi || (uint8_t *)out < dst_lo ||
        (uint8_t *)out + written > dst_hi || g->out_h > stages[stage].chunk || g->pad_left < 0 || g->pad_top < 0) {
        bad++;
        printf("stage %%d out of its buffers\n", (int)stage);
    }
    memset(out, 1, written);
    return 0;
}

int main(void)
{
    int32_t i, unwritten = 0;
    for (i = 0; i < %(count)d; i++) {
        stages[i].geo = &geo[i];
        stages[i].ring_offset = %(offsets)s[i];
        stages[i].chunk = %(chunks)s[i];
    }
    mr_rows_params p = {call, stages, %(count)d, 1, %(kernel_scratch)d, row_cuts, %(row_patches)d, col_cuts,
                        %(col_patches)d, %(walk)d, %(geometry)d, %(stage_in)d, %(stage_out)d};
    const int status = mr_rows(&p, in_buf, out_buf, scratch);
    for (i = 0; i < %(out_bytes)d; i++) {
        unwritten += out_buf[i] != 1;
    }
    printf("%%d %%d %%d\n", status, (int)calls, (int)(bad + unwritten));
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no host C compiler")
@pytest.mark.parametrize("grid", [(1, 1), (2, 1), (1, 2), (3, 2)])
@pytest.mark.parametrize("band", [1, 2, 4])
@pytest.mark.parametrize("name", ["KWS_PAIR", "INVERTED_RESIDUAL", "HEAD"])
def test_c_walk_stays_in_the_buffers_python_planned(name, band, grid, tmp_path):
    """Every call of the C walk reads inside the previous layer's rolling buffer (or the input, or the gathered
    stage of a column patch) and writes inside its own (or the output, or the stage), all as schedule/rows.py sized
    them, in at most its chunk of rows, and every output byte is written; the walk calls each layer at least once
    per chunk of rows it makes in each patch, and at most once per row."""
    chain = globals()[name]
    chunks = rows.chunks_of(chain, band)
    rings = rows.ring_bytes(chain, 1, chunks, grid)
    stage_in, stage_out = rows.stage_bytes(chain, 1, chunks, grid)
    offsets = [sum(rings[:i]) for i in range(len(chain))]
    kernel_scratch = sum(rings)
    walk_at = kernel_scratch
    geometry_at = walk_at + 16 * len(chain)
    stage_in_at = geometry_at + 64 * len(chain)
    stage_out_at = stage_in_at + stage_in
    fields = ("batches", "in_h", "in_w", "in_c", "out_h", "out_w", "out_c", "k_h", "k_w", "filter_c", "stride_h",
              "stride_w", "dil_h", "dil_w", "pad_top", "pad_left")
    source = HARNESS % {
        "geometries": ", ".join("{" + ", ".join(str(getattr(g, f)) for f in fields) + "}" for g in chain),
        "rings": ", ".join(map(str, rings)), "count": len(chain), "last": len(chain) - 1,
        "scratch": stage_out_at + stage_out, "kernel_scratch": kernel_scratch, "walk": walk_at,
        "geometry": geometry_at,
        "stage_in": stage_in_at, "stage_out": stage_out_at, "stage_in_bytes": stage_in, "stage_out_bytes": stage_out,
        "narrow": int(grid[1] > 1), "row_patches": grid[0], "col_patches": grid[1],
        "row_cuts": ", ".join(map(str, rows.cuts(chain[-1].out_h, grid[0]))),
        "col_cuts": ", ".join(map(str, rows.cuts(chain[-1].out_w, grid[1]))),
        "in_bytes": chain[0].in_h * chain[0].in_w * chain[0].in_c,
        "out_bytes": chain[-1].out_h * chain[-1].out_w * chain[-1].out_c,
        "offsets": "(const int32_t[]){" + ", ".join(map(str, offsets)) + "}",
        "chunks": "(const int32_t[]){" + ", ".join(map(str, chunks)) + "}"}
    (tmp_path / "harness.c").write_text(source)
    exe = tmp_path / "harness"
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-fsanitize=address,undefined", "-I",
                    ROOT / "crt" / "include", tmp_path / "harness.c", ROOT / "crt" / "src" / "mr_rows.c", "-o", exe],
                   check=True)
    status, calls, bad = map(int, subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split()[-3:])
    assert (status, bad) == (0, 0)
    cut = rows.patches(chain, grid)
    made = sum(-(-g.out_h // c) for p in cut for g, c in zip(p.chain, chunks))
    assert made <= calls <= sum(g.out_h for p in cut for g in p.chain)
