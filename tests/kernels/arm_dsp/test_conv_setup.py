"""mr_conv2d_s8's per tile and channel pair setup on the DSP path (crt/src/mr_conv2d_dsp.c), run on mps2-an386
(Cortex-M4, DSP extension) and compared with the reference interpreter, which is bit-exact with TFLite Micro.

extend_pair extends two blocks of 4 weights a loop pass and enters at the second for an odd count, so the cases
take whole-block counts n // 4 of 0, 1, odd and even (0 and 1: im2col windows of 3 and 5 values, the rest in the
C tail). The job fields a call or a tile fixes (the filters' slot, the passes and the blocks skipped, the output
step; the tile's end and its last pixel pair's step) are set once there and tile_pairs keeps them, so the cases
run several tiles of different lengths (a lone last pixel) and mix fast and raw channel pairs in one layer.
"""

from __future__ import annotations

import pytest

from support.tflite_models import conv2d_model
from support.cortex_m_cases import assert_bit_exact, bench_cases

# name: kwargs of conv2d_model (n // 4 whole blocks; what else it drives)
MODELS = {
    # 36 channels: 9 blocks (odd); 35 pixels: tiles of 16, 16 and 3 (a lone pixel), odd channel
    "pw36_tiles": dict(input_shape=(1, 5, 7, 36), out_channels=7, kernel=(1, 1), in_zp=-5, out_zp=3, seed=80),
    # 40 channels: 10 blocks (even), 18 pixels: tiles of 16 and 2
    "pw40_even": dict(input_shape=(1, 3, 6, 40), out_channels=8, kernel=(1, 1), in_zp=7, out_zp=-2, seed=81),
    # 44 channels: 11 blocks, ReLU6 (every pair raw) over tiles of 16 and 5
    "pw44_relu6": dict(input_shape=(1, 3, 7, 44), out_channels=6, kernel=(1, 1), activation="RELU6",
                       out_zp=-128, in_zp=-1, out_spread=0.5, seed=82),
    # shifts on both sides of -2 in one layer: fast and raw pairs alternate in every tile; 8 blocks
    "pw32_mixed": dict(input_shape=(1, 5, 5, 32), out_channels=11, kernel=(1, 1), out_spread=0.03, in_zp=2,
                       seed=83),
    # im2col 1x3 windows of one channel: no whole block, the tail only
    "im2col_1x3": dict(input_shape=(1, 6, 9, 1), out_channels=5, kernel=(1, 3), in_zp=4, out_zp=-3, seed=84),
    # im2col 1x5 windows of one channel: 1 whole block and a tail
    "im2col_1x5": dict(input_shape=(1, 5, 9, 1), out_channels=4, kernel=(1, 5), padding="VALID", in_zp=-7,
                       out_zp=1, seed=85),
    # im2col 3x3x4 windows: 9 blocks (odd), rows of 7 in bands, two tiles a band
    "im2col_3x3x4": dict(input_shape=(1, 7, 7, 4), out_channels=6, kernel=(3, 3), in_zp=-128, out_zp=5, seed=86),
}


@pytest.fixture(scope="module")
def results(arm_tools, tmp_path_factory):
    """Every model benched once on the Cortex-M4 board."""
    return bench_cases(tmp_path_factory.mktemp("dsp_conv_setup"),
                       {name: conv2d_model(**kwargs) for name, kwargs in MODELS.items()})


@pytest.mark.parametrize("name", sorted(MODELS))
def test_setup_matches_tflite_micro_on_cortex_m4(results, name):
    assert_bit_exact(results[name])
