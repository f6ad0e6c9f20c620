"""int8 pointwise convolutions with 9..16 input channels on the DSP path (mr_conv2d_s8_pw16 in
crt/src/mr_conv2d_dsp.c), run on mps2-an386 (Cortex-M4, DSP extension) and compared with the reference
interpreter, which is bit-exact with TFLite Micro.

mr_conv2d_s8_pw16 pads every window to 16 values (pixels with the input zero point, weights with zeros) and runs
a channel pair through tile16 when mr_requant_zp covers both channels and SSAT is the clamp, else through
tile_pairs and C. Up to 64 output channels every channel pair's weights are extended once a call (a weight
slot each in the scratch), above that one slot refilled per tile and pair. With 16 channels a tile's pixel pairs
are extended in one call (extend16_pairs), a lone last pixel on its own. The cases cover 9 (a 1-value last block), 12 (3 blocks, the 4th all padding), 16, and 20 (past
the entry's range: mr_conv2d_s8), odd output channel counts (the last channel paired with itself), odd pixel
counts (a lone last pixel in a tile), ReLU6 clamps narrower than int8, no bias, and per-channel shifts outside
[-21, -2] in one layer. A structural test checks that each case drives the entry and branch its comment names.
"""

from __future__ import annotations

import pytest

from support.tflite_models import conv2d_model
from support.cortex_m_cases import assert_bit_exact, bench_cases, compiled_single_op

# name: (kwargs of conv2d_model, branch). Every model is 1x1, stride 1: a pointwise layer.
# "fast": every channel pair in tile16; "mixed": some pairs in tile_pairs and C; "slow": every pair in C;
# "s8": mr_conv2d_s8 (more than 16 input channels).
MODELS = {
    # 9 channels: 2 blocks and a 1-value block, then 7 blocks of padding; 35 pixels (tiles 16, 16, 3), 7 outputs
    "c9_odd": (dict(input_shape=(1, 5, 7, 9), out_channels=7, in_zp=-128, out_zp=-128, seed=70), "fast"),
    # 12 channels without a bias, 17 pixels (a tile, then a lone pixel)
    "c12_no_bias": (dict(input_shape=(1, 1, 17, 12), out_channels=10, bias=None, in_zp=5, out_zp=-3, seed=71),
                    "fast"),
    # 16 channels, two batches, 9 outputs
    "c16_batches": (dict(input_shape=(2, 3, 5, 16), out_channels=9, in_zp=-4, out_zp=6, seed=72), "fast"),
    # 16 channels, a single pixel
    "c16_one_pixel": (dict(input_shape=(1, 1, 1, 16), out_channels=4, in_zp=3, out_zp=-1, seed=73), "fast"),
    # ReLU6 with act_max < 127: SSAT is not the clamp, every pair in C
    "c16_relu6": (dict(input_shape=(1, 5, 3, 16), out_channels=11, activation="RELU6", out_zp=-128, in_zp=-2,
                       out_spread=0.5, seed=67), "slow"),
    # 13 channels, ReLU6 likewise, odd pixels
    "c13_relu6": (dict(input_shape=(1, 3, 3, 13), out_channels=6, activation="RELU6", out_zp=-128,
                       out_spread=0.5, seed=3), "slow"),
    # shifts -1 and -2 in one layer (a large output scale): some pairs in tile16, the others in C
    "c16_shifts_m1_m2": (dict(input_shape=(1, 6, 5, 16), out_channels=9, out_spread=0.03, in_zp=2, seed=3),
                         "mixed"),
    # shifts -21 and -22 in one layer (a tiny output multiplier), 11 channels
    "c11_shifts_m21_m22": (dict(input_shape=(1, 3, 5, 11), out_channels=7, out_spread=3e4, out_zp=5, seed=3),
                           "mixed"),
    # 67 outputs (more than 64): one weight slot, the channel pairs' weights extended a tile; 11 pixels
    "c14_wide": (dict(input_shape=(1, 1, 11, 14), out_channels=67, in_zp=-9, out_zp=4, seed=75), "fast"),
    # 20 channels: mr_conv2d_s8, odd pixels and outputs
    "c20": (dict(input_shape=(1, 3, 7, 20), out_channels=9, in_zp=-7, out_zp=5, seed=74), "s8"),
}


@pytest.fixture(scope="module")
def results(arm_tools, tmp_path_factory):
    """Every model benched once on the Cortex-M4 board."""
    return bench_cases(tmp_path_factory.mktemp("dsp_conv_k16"),
                       {name: conv2d_model(kernel=(1, 1), **MODELS[name][0]) for name in MODELS})


@pytest.mark.parametrize("name", sorted(MODELS))
def test_pointwise_k16_matches_tflite_micro_on_cortex_m4(results, name):
    assert_bit_exact(results[name])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_case_drives_its_branch(tmp_path, name):
    """The entry the emitter calls and which channel pairs tile16 takes, from the prepared constants."""
    kwargs, branch = MODELS[name]
    p, source = compiled_single_op(tmp_path, name, conv2d_model(kernel=(1, 1), **MODELS[name][0]), "nn.conv2d")
    assert ("mr_conv2d_s8_pw16(" in source) == (branch != "s8")
    assert "mr_conv2d_s8_pw8(" not in source
    covered = [m >= 0 and -21 <= s <= -2 for m, s in zip(p["mult"], p["shift"])]
    full = (p["act_min"], p["act_max"]) == (-128, 127)
    out_c = kwargs["out_channels"]
    pairs = [full and covered[oc] and covered[oc + 1] for oc in range(0, out_c - 1, 2)]
    if branch == "fast":
        assert all(pairs)
    elif branch == "mixed":
        assert any(pairs) and not all(pairs), p["shift"]
        assert not all(covered)
    elif branch == "slow":
        assert not any(pairs) and -60 < p["act_max"] < 127, p["act_max"]
