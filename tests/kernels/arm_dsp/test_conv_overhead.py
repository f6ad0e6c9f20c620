"""int8 window convolutions on mr_conv2d_s8's DSP path (crt/src/mr_conv2d_dsp.c) in the shapes that drive the branches
added to cut its per-output and gather overheads, run on mps2-an386 (Cortex-M4, DSP extension) and compared with
the reference interpreter, which is bit-exact with TFLite Micro.

- With one group and rows shorter than a tile, a tile is a band of whole output rows (kws's first conv: 5-wide
  rows, 2 a tile), possibly across batch images, the last band shorter; grouped layers keep a row a tile.
- tile_pairs enters its loop and leaves it (requantization or raw accumulators) through addresses it works out
  once a call, for quads % 4 = 0 to 3, and stores a pixel's channel pair as one halfword.
- A window whose filter_c is not a multiple of 4 is staged as int8, each run copied a word at a time and then
  the 0 to 3 bytes left (runs of 1 to 15 bytes here, clipped by the padding).
A structural test checks that each case drives the branch its comment names.
"""

from __future__ import annotations

import pytest

from support.tflite_models import conv2d_model
from support.cortex_m_cases import assert_bit_exact, bench_cases, compiled_single_op
from micro_relay.kernels.arm_dsp.conv2d import dsp_scratch_bytes

# name: (kwargs of conv2d_model, quads % 4 of the window, rows a tile, what else it drives)
MODELS = {
    # kws's first conv in small: 10x4x1 windows (40 values, staged), stride 2, SAME: 7x4 outputs, runs of 2 to 4
    "band_10x4x1_stride2": (dict(input_shape=(1, 13, 8, 1), out_channels=8, kernel=(10, 4), stride=(2, 2),
                                 in_zp=-128, out_zp=-5, seed=90), 2, 3, "staged, short band"),
    # 3x3x4 windows (36 values, extended straight from the input), 3-wide rows, three batch images of 3 rows:
    # bands of 4 rows run across the images, the last one row (a lone pixel); odd channels
    "band_3x3x4_batches": (dict(input_shape=(3, 3, 3, 4), out_channels=5, kernel=(3, 3), in_zp=7, out_zp=3,
                                seed=91), 1, 4, "lone pixel, odd channel, short band"),
    # 3x5x3 windows (45 values, staged, tail 1): runs of 15 bytes inside (3 words, 3 bytes), 9 and 12 at the edges
    "band_3x5x3_runs": (dict(input_shape=(1, 6, 4, 3), out_channels=6, kernel=(3, 5), in_zp=-3, out_zp=9,
                             seed=92), 0, 3, "staged, window tail"),
    # 2x3x2 windows (12 values, staged): runs of 6 and 4 bytes; ReLU6 clamps take the raw accumulators; the last
    # band is one row (a lone pixel)
    "band_2x3x2_relu6": (dict(input_shape=(1, 5, 3, 2), out_channels=4, kernel=(2, 3), activation="RELU6",
                              in_zp=-1, out_zp=-128, out_spread=0.5, seed=93), 3, 4,
                         "staged, lone pixel, narrow clamp, short band"),
    # grouped, 3-wide rows: a row a tile (groups would read rows another group's stores have reached)
    "groups_short_rows": (dict(input_shape=(1, 5, 3, 8), out_channels=6, kernel=(3, 3), groups=2, in_zp=2,
                               out_zp=-2, seed=94), 1, 1, "lone pixel, odd channel"),
}


@pytest.fixture(scope="module")
def results(arm_tools, tmp_path_factory):
    """Every model benched once on the Cortex-M4 board."""
    return bench_cases(tmp_path_factory.mktemp("dsp_conv_overhead"),
                       {name: conv2d_model(**MODELS[name][0]) for name in MODELS})


@pytest.mark.parametrize("name", sorted(MODELS))
def test_overhead_cases_match_tflite_micro_on_cortex_m4(results, name):
    assert_bit_exact(results[name])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_case_drives_its_branch(tmp_path, name):
    """The window, the rows a tile (worked out from the scratch as mr_conv2d_s8 does), pixels and channels are
    what the case's comment says."""
    kwargs, rem, band, drives = MODELS[name]
    p, _ = compiled_single_op(tmp_path, name, conv2d_model(**MODELS[name][0]), "nn.conv2d")
    g = p["geometry"]
    n = g.k_h * g.k_w * g.filter_c
    quads = (n + 3) // 4
    assert quads % 4 == rem
    staged = g.filter_c % 4 != 0
    slots = (dsp_scratch_bytes(g) - (4 * quads if staged else 0)) // (16 * quads)
    tile = min(16, 2 * (slots - 1))
    one_group = g.filter_c == g.in_c
    assert (tile // g.out_w if one_group and tile >= g.out_w else 1) == band
    rows = g.batches * g.out_h
    assert ("short band" in drives) == (rows % band != 0)
    assert ("lone pixel" in drives) == (band * g.out_w % 2 == 1 or rows % band * g.out_w % 2 == 1)
    assert ("staged" in drives) == staged
    assert ("window tail" in drives) == (n % 4 != 0)
    assert ("odd channel" in drives) == (g.out_c // (g.in_c // g.filter_c) % 2 == 1)
    assert ("narrow clamp" in drives) == ((p["act_min"], p["act_max"]) != (-128, 127))
    if g.batches > 1:
        assert g.out_h % band != 0  # a band spans two images
