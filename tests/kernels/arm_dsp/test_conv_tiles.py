"""The int8 conv2d DSP path with tiles larger than the default (the tile_pixels option the compiler gives it where
the arena has room, plan/room.py), run on mps2-an386 and compared with the reference interpreter.

Each case forces a tile and names the branch it drives: one tile for a whole pointwise layer (each filter pair
extended once); channel pairs left raw (an odd last channel, a RELU6 clamp) over a tile of more than
MR_POINTWISE_TILE pixels, whose accumulators go through the 16-pixel stack buffer in pieces (pair_raw); the
_pw8 and _pw16 entries with large tiles (and _pw16's raw pairs); window layers whose tile is a band of several
output rows, a band of all of them, a staged (3-channel) window, and groups (a tile within one output row).
"""

from __future__ import annotations

import pytest

from support.cortex_m_cases import assert_bit_exact, bench_forced
from support.tflite_models import conv2d_model

CONV = "nn.conv2d"

# name: (kwargs of conv2d_model, tile_pixels)
CASES = {
    # 6x6x32 -> 32: all 36 pixels one tile
    "pointwise_one_tile": (dict(input_shape=(1, 6, 6, 32), out_channels=32, kernel=(1, 1), in_zp=-3, out_zp=2,
                                seed=60), 36),
    # 5x5x24 -> 7 with RELU6: every pair raw, 26-pixel tile = 16 + 10 through the stack buffer; odd last channel
    "pointwise_raw_pieces": (dict(input_shape=(1, 5, 5, 24), out_channels=7, kernel=(1, 1), activation="RELU6",
                                  in_zp=4, out_zp=-128, seed=61), 26),
    # 2 batches of 7x7x20 -> 10: a 98-pixel tile over both images (a lone last pixel pair half)
    "pointwise_batches": (dict(input_shape=(2, 7, 7, 20), out_channels=10, kernel=(1, 1), in_zp=1, out_zp=-4,
                               seed=62), 98),
    # _pw8: 12x12x8 -> 16, 144 pixels a tile
    "pw8_one_tile": (dict(input_shape=(1, 12, 12, 8), out_channels=16, kernel=(1, 1), in_zp=-7, out_zp=3,
                          seed=63), 144),
    # _pw16 with 12 channels (padded) and RELU6: raw pairs over an 82-pixel tile
    "pw16_raw_pieces": (dict(input_shape=(1, 9, 9, 12), out_channels=24, kernel=(1, 1), activation="RELU6",
                             in_zp=2, out_zp=-128, seed=64), 82),
    # _pw16 with 96 outputs (one weight slot refilled a tile), 36 pixels a tile
    "pw16_one_slot": (dict(input_shape=(1, 6, 6, 16), out_channels=96, kernel=(1, 1), in_zp=-1, out_zp=5,
                           seed=65), 36),
    # 3x3 SAME on 8x8x16: a band of 3 rows (24 pixels) a tile, the last band 2 rows
    "window_band_rows": (dict(input_shape=(1, 8, 8, 16), out_channels=16, in_zp=-2, out_zp=1, seed=66), 24),
    # 3x3 stride 2 on 12x12x8: all 36 output pixels one band
    "window_all_rows": (dict(input_shape=(1, 12, 12, 8), out_channels=12, stride=(2, 2), in_zp=3, out_zp=-1,
                             seed=67), 36),
    # 3 channels (staged as int8) on 10x10: bands of 4 rows, RELU6 (raw pairs in pieces of 16)
    "window_staged_raw": (dict(input_shape=(1, 10, 10, 3), out_channels=8, activation="RELU6", in_zp=-128,
                               out_zp=-128, seed=68), 40),
    # two groups: one output row a band, 10 pixels a tile
    "window_groups": (dict(input_shape=(1, 7, 9, 16), out_channels=8, groups=2, in_zp=-1, out_zp=2, seed=69), 10),
}


@pytest.fixture(scope="module")
def results(arm_tools, tmp_path_factory):
    models = {name: (conv2d_model(**kw), CONV, {"tile_pixels": tile}) for name, (kw, tile) in CASES.items()}
    return bench_forced(tmp_path_factory.mktemp("dsp_conv_tiles"), models)


@pytest.mark.parametrize("name", sorted(CASES))
def test_large_tile_matches_tflite_micro_on_cortex_m4(results, name):
    assert_bit_exact(results[name])
