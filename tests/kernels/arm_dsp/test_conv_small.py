"""int8 pointwise convolutions with few input channels on the DSP path (crt/src/mr_conv2d_dsp.c), run on mps2-an386
(Cortex-M4, DSP extension) and compared with the reference interpreter, which is bit-exact with TFLite Micro.

Up to 8 input channels the emitter picks mr_conv2d_s8_pw8 (one output channel's weights in registers over a tile of
pixels), below 8 its _padded form (the weights padded to 8 a channel in flash, so every channel of a tile takes one
assembly pass too); 12 and 16 take mr_conv2d_s8_pw16's 2x2 blocks (tests/kernels/arm_dsp/test_conv_k16.py covers
that entry). The cases cover both, with odd output channel counts, odd pixel counts (a lone last pixel in a tile), a
single pixel, ReLU6 clamps narrower than int8, no bias, and per-channel shifts on both sides of mr_requant_zp's
range [-21, -2] within one layer (those channels take C).
A structural test checks that each case drives the branch its comment names.
"""

from __future__ import annotations

import pytest

from support.tflite_models import conv2d_model
from support.cortex_m_cases import assert_bit_exact, bench_cases, compiled_single_op

# name: (kwargs of conv2d_model, the branch it drives). Every model is 1x1, stride 1: a pointwise layer.
# "all": one pw8_tile call a tile; "per channel": pw8_tile or C per channel; "blocks": 2x2 blocks, not _pw8.
MODELS = {
    # 8 channels, 45 pixels (tiles of 16, 16, 13), 7 output channels, both zero points at -128
    "c8_odd": (dict(input_shape=(1, 9, 5, 8), out_channels=7, in_zp=-128, out_zp=-128, seed=60), "all"),
    # 8 channels, 17 pixels: a tile of 16, then one of a single pixel
    "c8_tile_plus_one": (dict(input_shape=(1, 1, 17, 8), out_channels=5, in_zp=7, out_zp=3, seed=61), "all"),
    # a single pixel
    "c8_one_pixel": (dict(input_shape=(1, 1, 1, 8), out_channels=3, in_zp=-3, out_zp=2, seed=62), "all"),
    # two batches: the pixels of both in one row
    "c8_batches": (dict(input_shape=(2, 3, 3, 8), out_channels=9, in_zp=4, out_zp=-6, seed=63), "all"),
    # 3 channels, the weights padded to 8 (the pixels read as they are but the last), odd pixels, odd channels
    "c3": (dict(input_shape=(1, 5, 7, 3), out_channels=5, in_zp=6, out_zp=-2, seed=64), "all"),
    # 6 channels without a bias
    "c6_no_bias": (dict(input_shape=(1, 4, 5, 6), out_channels=9, bias=None, in_zp=-9, out_zp=1, seed=65),
                   "per channel"),
    # ReLU6 with an output scale that makes act_max < 127: SSAT is not the clamp, every channel in C
    "c8_relu6": (dict(input_shape=(1, 5, 5, 8), out_channels=7, activation="RELU6", out_zp=-128, in_zp=-1,
                      out_spread=0.5, seed=3), "per channel"),
    # shifts -2 and -1 in one layer (a large output scale): some channels in pw8_tile, the others in C
    "c8_shifts_m2_m1": (dict(input_shape=(1, 8, 8, 8), out_channels=7, out_spread=0.03, in_zp=2, seed=3),
                        "per channel"),
    # shifts 0, -1 and -2 with 6 channels
    "c6_shifts_0_m2": (dict(input_shape=(1, 8, 7, 6), out_channels=9, out_spread=0.03, in_zp=-5, seed=5),
                       "per channel"),
    # shifts -21 and -22 in one layer (a tiny output multiplier)
    "c8_shifts_m21_m22": (dict(input_shape=(1, 3, 5, 8), out_channels=7, out_spread=3e4, out_zp=5, seed=3),
                          "per channel"),
    # 12 and 16 channels: not the pw8 kernel (mr_conv2d_s8_pw16's 2x2 blocks), odd channels and pixels
    "c12": (dict(input_shape=(1, 3, 7, 12), out_channels=9, in_zp=-7, out_zp=5, seed=66), "blocks"),
    "c16_relu6": (dict(input_shape=(1, 5, 3, 16), out_channels=11, activation="RELU6", out_zp=-128, out_spread=0.5,
                       seed=67),
                  "blocks"),
}


@pytest.fixture(scope="module")
def results(arm_tools, tmp_path_factory):
    """Every model benched once on the Cortex-M4 board."""
    return bench_cases(tmp_path_factory.mktemp("dsp_conv_small"),
                       {name: conv2d_model(kernel=(1, 1), **MODELS[name][0]) for name in MODELS})


@pytest.mark.parametrize("name", sorted(MODELS))
def test_small_pointwise_matches_tflite_micro_on_cortex_m4(results, name):
    assert_bit_exact(results[name])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_case_drives_its_branch(tmp_path, name):
    """The kernel the emitter calls and what mr_conv2d_s8_pw8 decides per layer, from the prepared constants."""
    kwargs, branch = MODELS[name]
    p, source = compiled_single_op(tmp_path, name, conv2d_model(kernel=(1, 1), **MODELS[name][0]), "nn.conv2d")
    channels = kwargs["input_shape"][3]
    assert ("mr_conv2d_s8_pw8(" in source) == (branch != "blocks" and channels == 8)
    assert ("mr_conv2d_s8_pw8_padded(" in source) == (branch != "blocks" and channels < 8)
    covered = [m >= 0 and -21 <= s <= -2 for m, s in zip(p["mult"], p["shift"])]
    full = (p["act_min"], p["act_max"]) == (-128, 127)
    everything = channels <= 8 and kwargs.get("bias", "default") is not None and full
    if branch == "all":
        assert everything and all(covered)
    elif branch == "per channel":
        assert not (everything and all(covered))
    if name.startswith("c8_shifts") or name.startswith("c6_shifts"):
        assert any(covered) and not all(covered), p["shift"]
    if "relu6" in name:
        assert -60 < p["act_max"] < 127, p["act_max"]  # a clamp that bites, and unclamped outputs to check
