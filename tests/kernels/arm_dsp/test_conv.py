"""The int8 conv2d DSP path's window gathering and inner loop (crt/src/mr_conv2d_dsp.c), run on mps2-an386
(Cortex-M4, DSP extension) and compared with the reference interpreter, which is bit-exact with TFLite Micro.

Each small model drives one branch: a filter row's in-image taps gathered as one run and clipped at the left
and right image borders (channels a multiple of 4, extended straight from the input; and 3 channels, staged as
int8), a kernel wider than the image, per-tap runs (dilation with direct extension, groups), windows of an odd
and an even number of 4-value blocks (the inner loop takes two blocks a pass), a pointwise layer with fewer than
4 channels (no whole block to extend), and a window so large that a tile holds a single pixel pair.
"""

from __future__ import annotations

import pytest

from support.tflite_models import conv2d_model
from support.cortex_m_cases import assert_bit_exact, bench_cases

# name: (kwargs of conv2d_model). Comments name the branch each one exercises.
MODELS = {
    # 3x3 SAME, 8 channels: 24-value row runs, cut to 16 at the left and right borders; 18 blocks a window (even)
    "rows_direct_same": dict(input_shape=(1, 6, 7, 8), out_channels=6, in_zp=-5, out_zp=3, seed=40),
    # 3 channels (staged), 3x3 SAME on a 32-wide image like ResNet-8's first layer: 9-byte runs, clipped ones
    "rows_staged_same": dict(input_shape=(1, 5, 32, 3), out_channels=16, in_zp=-128, out_zp=-7, seed=41),
    # a 10x4 kernel on an image 3 pixels wide, one channel, stride 2: runs clipped on both sides at once
    "kernel_wider_than_image": dict(input_shape=(1, 12, 3, 1), out_channels=4, kernel=(10, 4), stride=(2, 2),
                                    in_zp=9, out_zp=1, seed=42),
    # 4 channels, dilation 2 (one run per tap, direct), 9 blocks a window (odd: the loop enters halfway)
    "dilated_direct_odd_quads": dict(input_shape=(1, 8, 9, 4), out_channels=4, dilation=(2, 2), in_zp=2,
                                     out_zp=-3, seed=43),
    # two groups of 8 channels: one run per tap (not contiguous across the group), stride 2, VALID
    "groups_per_tap": dict(input_shape=(1, 7, 7, 16), out_channels=4, groups=2, stride=(2, 2), padding="VALID",
                           in_zp=-1, seed=44),
    # pointwise on 3 channels: no whole block of 4 (the extension loop runs zero times), the tail padded
    "pointwise_c3": dict(input_shape=(1, 4, 5, 3), out_channels=6, kernel=(1, 1), in_zp=6, out_zp=-2, seed=45),
    # a 3x3x240 window (8,640 B a pixel pair): one pair a tile, 13 output pixels a row (a lone last pixel)
    "one_pair_a_tile": dict(input_shape=(1, 3, 13, 240), out_channels=2, in_zp=-4, out_zp=5, seed=46),
}


@pytest.fixture(scope="module")
def results(arm_tools, tmp_path_factory):
    """Every model benched once on the Cortex-M4 board."""
    return bench_cases(tmp_path_factory.mktemp("dsp_conv"), {n: conv2d_model(**kw) for n, kw in MODELS.items()})


@pytest.mark.parametrize("name", sorted(MODELS))
def test_dsp_conv_matches_tflite_micro_on_cortex_m4(results, name):
    assert_bit_exact(results[name])
