"""The Cortex-M DSP paths of the int8 conv2d, depthwise_conv2d, dense and add kernels (crt/include/micro_relay/
simd.h), run on mps2-an386 (Cortex-M4, DSP extension) and compared with the reference interpreter, which is
bit-exact with TFLite Micro. Each small model drives one branch of those paths: odd channel counts and counts
that are not multiples of 4, padding at the borders, stride 2, dilation, groups, depth multipliers above 1,
per-channel quantization, one pixel pair per tile, depthwise 3x3 windows inside the image and
across its border at strides 1 and 2, and ADD with broadcasting. The host half
checks the requantization the DSP paths use against TFLite Micro's, on the host C compiler.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from micro_relay.compiler import CRT_DIR
from support.tflite_models import binary_model, conv2d_model, depthwise_model, fully_connected_model, pool_model
from support.cortex_m_cases import assert_bit_exact, bench_cases

CRT_INCLUDE = CRT_DIR / "include"

# name: (builder, kwargs). Comments name the DSP branch each one exercises.
MODELS = {
    # pointwise (1x1) tile: 13 channels (3 blocks of 4 + tail), 7 output channels (odd last), 35 pixels
    "pointwise_odd": (conv2d_model, dict(input_shape=(1, 5, 7, 13), out_channels=7, kernel=(1, 1), in_zp=-3,
                                         out_zp=2, seed=1)),
    # pointwise with fewer than 8 channels (_pw8_padded: weights padded to 8 in flash, pixels read 8 bytes as they
    # are): 5 -> 7 on an odd 15x15 map; 3 -> 6 with ReLU6 (no single pass: a channel at a time, in C); one channel
    # on 15 pixels (the last pixels padded, not read past the input)
    "pointwise_c5_padded": (conv2d_model, dict(input_shape=(1, 15, 15, 5), out_channels=7, kernel=(1, 1), in_zp=-3,
                                               out_zp=2, seed=19)),
    "pointwise_c3_relu6": (conv2d_model, dict(input_shape=(1, 5, 7, 3), out_channels=6, kernel=(1, 1), in_zp=9,
                                              activation="RELU6", seed=20)),
    "pointwise_c1_15px": (conv2d_model, dict(input_shape=(1, 3, 5, 1), out_channels=4, kernel=(1, 1), in_zp=-128,
                                             out_zp=5, seed=21)),
    # 3x3 stride 2 SAME: windows cut by the border, channels a multiple of 4 (direct extension), ReLU
    "conv3x3_s2_pad": (conv2d_model, dict(input_shape=(1, 9, 11, 8), out_channels=6, stride=(2, 2), in_zp=5,
                                          out_zp=-4, activation="RELU", seed=2)),
    # 3 input channels (staged window), dilation 2, per-tensor weights, batch 2
    "conv3x3_dil_c3": (conv2d_model, dict(input_shape=(2, 8, 9, 3), out_channels=5, dilation=(2, 2),
                                          per_channel=False, in_zp=-128, out_zp=7, seed=3)),
    # 10x4 kernel on one channel, stride 2 (the keyword-spotting first layer's shape)
    "conv10x4_c1": (conv2d_model, dict(input_shape=(1, 15, 8, 1), out_channels=9, kernel=(10, 4), stride=(2, 2),
                                       in_zp=11, seed=4)),
    # a window of 3x3x72 values: one pair of pixels per tile (2,592 B of scratch)
    "conv_large_window": (conv2d_model, dict(input_shape=(1, 4, 5, 72), out_channels=3, in_zp=-9, seed=5)),
    # the assembly block with the int8 clamp: 9 pixels a row (a lone last pixel per row), 6 channels (pairs)
    "conv3x3_fast_odd_row": (conv2d_model, dict(input_shape=(1, 5, 9, 8), out_channels=6, in_zp=-128, out_zp=3,
                                                seed=17)),
    # pointwise with 10 channels (windows padded to 12): assembly for the first pairs, C tail for the last
    "pointwise_fast_tail": (conv2d_model, dict(input_shape=(1, 3, 7, 10), out_channels=6, kernel=(1, 1), in_zp=7,
                                               out_zp=-1, seed=18)),
    # two groups
    "conv_groups": (conv2d_model, dict(input_shape=(1, 6, 6, 8), out_channels=6, groups=2, in_zp=3, seed=6)),
    # depthwise, multiplier 1: 10 channels (blocks of 4 + 2 alone), stride 2, borders
    "dw_m1_s2": (depthwise_model, dict(input_shape=(1, 9, 8, 10), stride=(2, 2), in_zp=-7, out_zp=3, seed=7)),
    # depthwise 3x3, multiplier 1, stride 1: unrolled interior windows, border windows, 6 channels (a block
    # of 4 + 2 alone), a clamp narrower than int8 (ReLU6)
    "dw3x3_s1_c6": (depthwise_model, dict(input_shape=(1, 6, 7, 6), in_zp=9, out_zp=-5, activation="RELU6",
                                          seed=13)),
    # depthwise 3x3 stride 2, VALID (every window inside), 8 channels, ReLU with out_zp -128 (full int8 range)
    "dw3x3_s2_valid": (depthwise_model, dict(input_shape=(1, 9, 10, 8), stride=(2, 2), padding="VALID",
                                             in_zp=-128, out_zp=-128, activation="RELU", seed=14)),
    # depthwise without bias (no folded bias: every window subtracts the zero point) and a 5x3 dilated window
    "dw_nobias_dil": (depthwise_model, dict(input_shape=(1, 9, 8, 4), kernel=(3, 3), dilation=(2, 1), bias=None,
                                            in_zp=-20, seed=15)),
    "dw5x3": (depthwise_model, dict(input_shape=(2, 7, 6, 5), kernel=(5, 3), stride=(1, 2), in_zp=3, seed=16)),
    # depthwise, multiplier 2 and 3 (each lane's input channel gathered into the strip, the last block partial)
    # and 4 (shared input), ReLU6
    "dw_m2": (depthwise_model, dict(input_shape=(1, 7, 6, 3), depth_multiplier=2, in_zp=4, seed=8)),
    "dw_m3": (depthwise_model, dict(input_shape=(1, 6, 9, 3), depth_multiplier=3, in_zp=-6, out_zp=2, seed=43)),
    # a 1-D window over time (1x5 on one row), 6 channels: a whole block and a partial one, both from the strip
    "dw_1x5_c6": (depthwise_model, dict(input_shape=(1, 1, 40, 6), kernel=(1, 5), in_zp=3, seed=44)),
    "dw_m4": (depthwise_model, dict(input_shape=(1, 6, 7, 2), depth_multiplier=4, activation="RELU6", seed=9)),
    # depthwise 3x3 from the strip over rows wider than one chunk (16 pixels): 37 and 19 output pixels a row,
    # strides 1 and 2, the clamp of ReLU6 packed bytewise (SSUB8/SEL)
    "dw3x3_wide_s1": (depthwise_model, dict(input_shape=(1, 4, 37, 8), in_zp=-128, out_zp=-128,
                                            activation="RELU6", seed=27)),
    "dw3x3_wide_s2": (depthwise_model, dict(input_shape=(1, 5, 38, 12), stride=(2, 2), in_zp=6, out_zp=2,
                                            seed=28)),
    # one input channel, depth multiplier 8 (person_detect's first layer): 4 outputs of one input channel
    "dw_c1_m8": (depthwise_model, dict(input_shape=(1, 9, 10, 1), depth_multiplier=8, stride=(2, 2), in_zp=-1,
                                       seed=29)),
    # multiplier a multiple of 4, 3x3: the strip with one input channel in all four lanes, shared by the blocks of
    # that channel; rows wider than a chunk, two and three input channels, strides 1 and 2, ReLU6
    "dw3x3_m8_c2_wide": (depthwise_model, dict(input_shape=(1, 5, 37, 2), depth_multiplier=8, in_zp=-128,
                                               out_zp=-128, activation="RELU6", seed=30)),
    "dw3x3_m4_c3_s2": (depthwise_model, dict(input_shape=(1, 7, 40, 3), depth_multiplier=4, stride=(2, 2), in_zp=5,
                                             out_zp=-3, seed=31)),
    # 3x3 blocks whose requantization the fast assembly cannot do (a large output scale): shifts -1 to -3 with
    # ReLU6 over rows of two chunks (_strip3x3_shift1); shifts 0, +1 and -1 with multiplier 4: sums to scratch,
    # requantized in C (_strip3x3_x4)
    "dw3x3_raw_sums": (depthwise_model, dict(input_shape=(1, 6, 20, 8), in_zp=3, out_zp=-2, out_spread=0.03,
                                             activation="RELU6", seed=40)),
    # shifts -1 (and -2, -3) with no clamp: the longer assembly requantization (_strip3x3_shift1), negative sums
    # included
    "dw3x3_shift1": (depthwise_model, dict(input_shape=(1, 6, 20, 8), in_zp=3, out_zp=-2, out_spread=0.03,
                                           seed=40)),
    "dw3x3_shift1_m8": (depthwise_model, dict(input_shape=(1, 7, 9, 1), depth_multiplier=8, in_zp=-5, out_zp=4,
                                              out_spread=0.03, seed=42)),
    "dw3x3_raw_m4": (depthwise_model, dict(input_shape=(1, 5, 9, 2), depth_multiplier=4, in_zp=-4, out_zp=1,
                                           out_spread=0.008, seed=41)),
    # multiplier 4 with a dilated window: the window walk (4 outputs of one input channel a pass), no strip
    "dw_m4_dil": (depthwise_model, dict(input_shape=(1, 8, 9, 2), depth_multiplier=4, dilation=(2, 2), in_zp=2,
                                        seed=32)),
    # fully connected: depth 37 (tail of 1), 9 units (2 blocks of 4 + 1 in C), 3 rows, per-channel
    "fc_odd": (fully_connected_model, dict(input_shape=(3, 37), units=9, per_channel=True, in_zp=4, out_zp=-2,
                                           seed=10)),
    # ADD: broadcast over the last axis with ReLU, and equal shapes with different scales
    "add_broadcast": (binary_model, dict(shape1=(1, 4, 3, 5), shape2=(1, 1, 1, 5), activation="RELU",
                                         quant1=(0.05, -3), quant2=(0.11, 6), out_quant=(0.08, -20), seed=11)),
    "add_same": (binary_model, dict(shape1=(1, 6, 5, 7), shape2=(1, 6, 5, 7), quant1=(0.02, 10),
                                    quant2=(0.3, -100), out_quant=(0.25, 1), seed=12)),
    # flat ADD fast path (mr_add.c): the input with the larger scale (multiplier 2^30, shift 0) first, the other
    # by mr_requant_s0 (shift 0: equal scales), mr_requant_r with shift -1 (scale ratio in [0.5, 1)) or <= -2;
    # with a clamp narrower than int8 (ReLU, ReLU6 with out_zp > -128) and without (ReLU with out_zp -128);
    # odd sizes; the larger scale on either side
    "add_flat_shift0": (binary_model, dict(shape1=(1, 5, 3, 7), shape2=(1, 5, 3, 7), quant1=(0.05, 3),
                                           quant2=(0.05, -7), out_quant=(0.09, 2), seed=19)),
    "add_flat_shift0_relu": (binary_model, dict(shape1=(1, 4, 4, 9), shape2=(1, 4, 4, 9), activation="RELU",
                                                quant1=(0.03, -128), quant2=(0.03, 127), out_quant=(0.05, -6),
                                                seed=20)),
    "add_flat_shift_m1": (binary_model, dict(shape1=(1, 3, 5, 7), shape2=(1, 3, 5, 7), quant1=(0.04, -5),
                                             quant2=(0.03, 12), out_quant=(0.06, -3), seed=21)),
    "add_flat_shift_m1_relu6": (binary_model, dict(shape1=(1, 6, 6, 3), shape2=(1, 6, 6, 3), activation="RELU6",
                                                   quant1=(0.021, 9), quant2=(0.04, -1), out_quant=(0.03, -20),
                                                   seed=22)),
    "add_flat_shift_m5_relu_full": (binary_model, dict(shape1=(1, 8, 8, 5), shape2=(1, 8, 8, 5),
                                                       activation="RELU", quant1=(0.06, -2), quant2=(0.0021, 5),
                                                       out_quant=(0.05, -128), seed=23)),
    "add_flat_b_larger_clamp": (binary_model, dict(shape1=(2, 3, 3, 5), shape2=(2, 3, 3, 5), activation="RELU",
                                                   quant1=(0.01, 20), quant2=(0.1, -3), out_quant=(0.12, 4),
                                                   seed=24)),
    # a tiny output multiplier (shift -25): outside the fast path, the general loop
    "add_flat_out_shift_25": (binary_model, dict(shape1=(1, 4, 4, 4), shape2=(1, 4, 4, 4), quant1=(0.05, 1),
                                                 quant2=(0.04, 0), out_quant=(5.0, 0), seed=25)),
    # broadcasting with equal scales (both shift 0) and a clamp: the general loop
    "add_broadcast_shift0": (binary_model, dict(shape1=(1, 3, 4, 6), shape2=(1, 3, 1, 6), activation="RELU6",
                                                quant1=(0.05, -3), quant2=(0.05, 6), out_quant=(0.04, -10),
                                                seed=26)),
    # int8 AVERAGE_POOL_2D in blocks of 4 channels (16-bit lane sums): 10 channels (2 blocks + 2 alone), windows
    # clipped at the borders (counts 4, 6, 9), ReLU6; kws's global pool (125 taps); a window of 256 taps (over
    # the 255 the lane sums allow: the scalar loop)
    "avg_pool_c10_same": (pool_model, dict(input_shape=(1, 7, 8, 10), filter_size=(3, 3), stride=(2, 2),
                                           padding="SAME", activation="RELU6", zero_point=-3)),
    "avg_pool_global_125": (pool_model, dict(input_shape=(1, 25, 5, 64), filter_size=(25, 5), stride=(1, 1),
                                             padding="VALID", zero_point=-128)),
    "avg_pool_256_taps": (pool_model, dict(input_shape=(1, 16, 16, 8), filter_size=(16, 16), stride=(1, 1),
                                           padding="VALID", zero_point=7)),
}


@pytest.fixture(scope="module")
def results(arm_tools, tmp_path_factory):
    """Every model benched once on the Cortex-M4 board."""
    return bench_cases(tmp_path_factory.mktemp("dsp"), {name: build(**kw) for name, (build, kw) in MODELS.items()})


@pytest.mark.parametrize("name", sorted(MODELS))
def test_dsp_path_matches_tflite_micro_on_cortex_m4(results, name):
    assert_bit_exact(results[name])


REQUANT_CHECK = r"""
#include <stdio.h>
#include "micro_relay/conv2d.h"
#include "micro_relay/fixedpoint.h"
#include "micro_relay/simd.h"

static uint64_t state = 88172645463325252ull;
static uint32_t next(void) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return (uint32_t)state; }

int main(void)
{
    static const int32_t edges[] = {0, 1, -1, 2, -2, 1 << 30, -(1 << 30), INT32_MAX, INT32_MIN, INT32_MIN + 1,
                                    INT32_MAX - 1, 12345, -12345, 1 << 20, -(1 << 20)};
    const int ne = (int)(sizeof edges / sizeof edges[0]);
    long bad = 0, i;
    for (i = 0; i < 4000000; ++i) {
        int32_t acc = (int32_t)next(), mult = (int32_t)(next() >> 1), shift = (int32_t)(next() % 40u) - 31;
        mr_conv_requant q;
        mr_requant_dsp qq;
        mr_requant_zp qz;
        const int32_t zp = (int32_t)(next() % 256u) - 128;
        if (i % 4 == 1) acc = edges[next() % (uint32_t)ne];
        if (i % 4 == 2) acc >>= next() % 31u;
        if (i % 8 == 3) mult = (int32_t)next() | 1;           /* negative multipliers too */
        if (i % 16 == 5) mult = edges[next() % (uint32_t)ne];
        if (mult == INT32_MIN) mult = 0;
        mr_conv_requant_of(mult, shift, 0, &q);
        mr_requant_q_of(mult, shift, &qq);
        {
            const int32_t want = mr_mbqm(acc, mult, shift);
            if (mr_conv_requantize(&q, acc) != want ||
                mr_requant_fast(acc, q.mult, q.left, q.right, q.nudge) != want ||
                mr_requant_raw(acc, mult, shift) != want || mr_requant_q(acc, &qq) != want ||
                (mr_requant_zp_of(mult, shift, zp, &qz) && mr_requant_zp_apply(acc, &qz) != want + zp)) {
                if (bad++ < 5) printf("acc %ld mult %ld shift %ld\n", (long)acc, (long)mult, (long)shift);
            }
        }
    }
    /* mr_requant_s0 / mr_requant_r (the flat ADD path): every (v + offset) << 20 of int8 (|v| <= 255) and
     * random accumulators below 2^30, shifts 0..-30, random, edge and negative multipliers, zero points */
    for (i = 0; i < 4000000; ++i) {
        int32_t x = (int32_t)next() >> 2, mult = (int32_t)(next() >> 1), shift = -(int32_t)(next() % 31u);
        const int32_t zp = (int32_t)(next() % 257u) - 128;
        if (i % 2 == 0) x = (int32_t)(i / 2 % 511) - 255, x *= (int32_t)1 << 20;
        if (i % 5 == 0) shift = -(int32_t)(next() % 3u); /* 0, -1 and -2 often */
        if (i % 8 == 3) mult = (int32_t)next() | 1;
        if (i % 16 == 5) mult = edges[next() % (uint32_t)ne];
        if (i % 32 == 7) mult = 1 << 30;
        if (mult == INT32_MIN) mult = 0;
        if (shift == 0) {
            if (mr_requant_s0(2 * x, mult) != mr_mbqm(x, mult, 0)) {
                if (bad++ < 5) printf("s0 x %ld mult %ld\n", (long)x, (long)mult);
            }
        } else {
            const int32_t z = -shift <= 22 ? zp : 0;
            if (mr_requant_r(2 * x, mult, mr_requant_r_h(-shift, z), -shift) != mr_mbqm(x, mult, shift) + z) {
                if (bad++ < 5) printf("r x %ld mult %ld shift %ld zp %ld\n", (long)x, (long)mult, (long)shift,
                                      (long)z);
            }
        }
    }
    printf("%ld\n", bad);
    return bad != 0;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="no host C compiler (cc) on PATH")
def test_dsp_requantization_equals_tflite_micro(tmp_path):
    """mr_requant_fast, mr_requant_raw, mr_requant_q and mr_requant_zp (plus a zero point, on the channels it
    accepts) (simd.h) give MultiplyByQuantizedMultiplier's value: shifts -31..8,
    random, edge and negative multipliers, random and edge accumulators; and mr_requant_s0 / mr_requant_r of
    the flat ADD path (shifts 0..-30, plus a zero point for shifts down to -22) on every int8 input shifted
    left by 20 and on random accumulators below 2^30."""
    source = tmp_path / "requant.c"
    source.write_text(REQUANT_CHECK)
    exe = tmp_path / "requant"
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-I", str(CRT_INCLUDE), str(source),
                    "-o", str(exe)], check=True)
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip().endswith("0"), result.stdout
