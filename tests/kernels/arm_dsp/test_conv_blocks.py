"""int8 convolutions on mr_conv2d_s8's DSP path (crt/src/mr_conv2d_dsp.c) in the shapes that drive each branch of
tile_pairs, run on mps2-an386 (Cortex-M4, DSP extension) and compared with the reference interpreter, which is
bit-exact with TFLite Micro.

Per tile and output-channel pair the kernel extends both filters to int16 into the scratch's weight slot (the
last block of a window whose length is not a multiple of 4 padded with zeros in C), then one assembly call runs
every pixel pair of the tile: the inner loop enters a pass of 4 blocks at the block that quads % 4 says, a lone
last pixel stores with step 0, and channel pairs that mr_requant_zp does not cover (shifts outside [-21, -2]),
an odd last channel and clamps narrower than int8 (ReLU6) take raw accumulators requantized in C. A structural
test checks that each case drives the branch its comment names.
"""

from __future__ import annotations

import pytest

from support.tflite_models import conv2d_model
from support.cortex_m_cases import assert_bit_exact, bench_cases, compiled_single_op
from micro_relay.kernels.arm_dsp.conv2d import dsp_scratch_bytes

# name: (kwargs of conv2d_model, quads % 4 of the window, what else it drives)
MODELS = {
    # pointwise, 16 channels (4 blocks: full passes), 35 pixels: tiles 16, 16, 3 (a lone pixel), 7 channels
    "pw16_odd": (dict(input_shape=(1, 5, 7, 16), out_channels=7, kernel=(1, 1), in_zp=-128, out_zp=-128,
                      seed=70), 0, "odd channel, lone pixel"),
    # 20 channels: 5 blocks, enters at the fourth block of the first pass
    "pw20": (dict(input_shape=(1, 3, 6, 20), out_channels=6, kernel=(1, 1), in_zp=9, out_zp=-4, seed=71), 1, ""),
    # 24 channels without a bias: enters at the third block
    "pw24_no_bias": (dict(input_shape=(1, 4, 4, 24), out_channels=8, kernel=(1, 1), bias=None, in_zp=-6,
                          out_zp=2, seed=72), 2, "no bias"),
    # 28 channels: enters at the second block; a single pixel (the tile is one lone pixel)
    "pw28_one_pixel": (dict(input_shape=(1, 1, 1, 28), out_channels=5, kernel=(1, 1), in_zp=3, out_zp=-1,
                            seed=73), 3, "lone pixel, odd channel"),
    # 13 channels: the last block has one value, the filters' padded in C; 17 pixels (16 + a lone one)
    "pw13_tail": (dict(input_shape=(1, 1, 17, 13), out_channels=9, kernel=(1, 1), in_zp=-3, out_zp=6, seed=74),
                  0, "window tail, odd channel, lone pixel"),
    # ReLU6 whose act_max < 127: every pair takes raw accumulators; 15 pixels, 9 channels
    "pw16_relu6": (dict(input_shape=(1, 3, 5, 16), out_channels=9, kernel=(1, 1), activation="RELU6",
                        out_zp=-128, in_zp=-1, out_spread=0.5, seed=3), 0, "narrow clamp, odd channel, lone pixel"),
    # a large output scale: shifts -3, -2 and -1 in one layer, pairs on both paths
    "pw20_shifts_m2_m1": (dict(input_shape=(1, 6, 5, 20), out_channels=11, kernel=(1, 1), out_spread=0.03,
                               in_zp=2, seed=3), 1, "shifts above -2, odd channel"),
    # a tiny output multiplier: shifts -21 and -22 in one layer
    "pw16_shifts_m21_m22": (dict(input_shape=(1, 3, 5, 16), out_channels=7, kernel=(1, 1), out_spread=3e4,
                                 out_zp=5, seed=3), 0, "shifts below -21, odd channel, lone pixel"),
    # im2col: 3x3x3 windows (27 values: 7 blocks, tail 3, staged as int8), SAME padding, 5-wide rows (a lone
    # pixel per tile), stride 2
    "im2col_3x3x3_stride2": (dict(input_shape=(1, 9, 9, 3), out_channels=6, kernel=(3, 3), stride=(2, 2),
                                  in_zp=-128, out_zp=4, seed=75), 3, "window tail, lone pixel"),
    # im2col: 3x3x8 windows (72 values: 18 blocks), VALID, 7-wide rows, odd channels
    "im2col_3x3x8": (dict(input_shape=(1, 9, 9, 8), out_channels=5, kernel=(3, 3), padding="VALID", in_zp=5,
                          out_zp=-7, seed=76), 2, "odd channel, lone pixel"),
    # grouped: 2 groups of 4 channels, 2x2 windows (16 values: 4 blocks), 3 output channels a group
    "im2col_groups": (dict(input_shape=(1, 6, 6, 8), out_channels=6, kernel=(2, 2), groups=2, in_zp=-2, out_zp=1,
                           seed=77), 0, "odd channel"),
}


@pytest.fixture(scope="module")
def results(arm_tools, tmp_path_factory):
    """Every model benched once on the Cortex-M4 board."""
    return bench_cases(tmp_path_factory.mktemp("dsp_conv_blocks"),
                       {name: conv2d_model(**MODELS[name][0]) for name in MODELS})


@pytest.mark.parametrize("name", sorted(MODELS))
def test_blocks_match_tflite_micro_on_cortex_m4(results, name):
    assert_bit_exact(results[name])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_case_drives_its_branch(tmp_path, name):
    """mr_conv2d_s8 is called (not the 8-channel kernel; pointwise with 9..16 channels mr_conv2d_s8_pw16, whose
    channel pairs outside tile16 take tile_pairs), and the window, pixels, channels and constants are what the
    case's comment says."""
    kwargs, rem, drives = MODELS[name]
    p, source = compiled_single_op(tmp_path, name, conv2d_model(**MODELS[name][0]), "nn.conv2d")
    g = p["geometry"]
    entry = "mr_conv2d_s8_pw16(" if g.k_h * g.k_w == 1 and 8 < g.in_c <= 16 else "mr_conv2d_s8("
    assert entry in source and "mr_conv2d_s8_pw8(" not in source
    n = g.k_h * g.k_w * g.filter_c
    quads = (n + 3) // 4
    assert quads % 4 == rem
    slots = (dsp_scratch_bytes(g) - (0 if g.filter_c % 4 == 0 or g.k_h * g.k_w == 1 else 4 * quads)) // (16 * quads)
    assert slots >= 2  # the weight slot and at least one pixel pair
    tile = min(16, 2 * (slots - 1))
    row = g.batches * g.out_h * g.out_w if g.k_h * g.k_w == 1 else g.out_w
    per_group = g.out_c // (g.in_c // g.filter_c)
    assert ("lone pixel" in drives) == (row % tile % 2 == 1)
    assert ("odd channel" in drives) == (per_group % 2 == 1)
    assert ("window tail" in drives) == (n % 4 != 0)
    assert ("no bias" in drives) == (kwargs.get("bias", "default") is None)
    covered = [m >= 0 and -21 <= s <= -2 for m, s in zip(p["mult"], p["shift"])]
    assert ("shifts" in drives) == (not all(covered))
    if "shifts" in drives:
        assert any(covered), p["shift"]  # some pairs in the assembly, some in C
    assert ("narrow clamp" in drives) == ((p["act_min"], p["act_max"]) != (-128, 127))
    if "narrow clamp" in drives:
        assert -60 < p["act_max"] < 127, p["act_max"]  # a clamp that bites, and unclamped outputs to check
