"""CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV and FULLY_CONNECTED against TFLite Micro.

Hypothesis draws shapes, strides, paddings, dilations, quantization (per-tensor and per-channel) and fused
activations for int8, int16x8 and float32, within what TFLite Micro's Prepare accepts; each example is a
single-op model compiled to C and run next to the reference interpreter and TFLite Micro. Named cases pin
the layer shapes real models use. The example count comes from the hypothesis profile (tests/conftest.py).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.tflite_models import (ACTIVATIONS, PADDINGS, SEEDS, check, conv2d_model, depthwise_model,
                                   fully_connected_model, log_uniform, transpose_conv_model, zero_points)

DTYPES = st.sampled_from(["int8", "int16", "float32"])
# int16x8 kernels read the bias as int64 (depthwise only that); conv and FC also take int32.
CONV_BIASES = {"int8": ["int32", None], "int16": ["int64", "int32", None], "float32": ["float32", None]}
DEPTHWISE_BIASES = {"int8": ["int32", None], "int16": ["int64", None], "float32": ["float32", None]}
DILATIONS = st.sampled_from([(1, 1), (1, 1), (2, 2), (1, 2), (3, 1)])


def _window(draw, padding: str, kernel: int, dilation: int = 1) -> int:
    """An input size; VALID windows must fit."""
    effective = (kernel - 1) * dilation + 1
    return draw(st.integers(effective if padding == "VALID" else 1, effective + 7))


def _bias_params(draw, dtype: str, choices: dict) -> dict:
    """A bias kind; a bias-less int16 conv or FC may declare quantized_bias_type int32, which switches
    TFLite Micro from int64 to int32 accumulation."""
    bias = draw(st.sampled_from(choices[dtype]))
    declared = draw(st.sampled_from([None, "int32"])) if dtype == "int16" and bias is None else None
    return {"bias": bias, "quantized_bias_type": declared}


def _quant_params(draw, dtype: str) -> dict:
    return {"in_scale": draw(log_uniform(1e-3, 0.2)), "in_zp": draw(zero_points(dtype)),
            "out_zp": draw(zero_points(dtype)), "out_spread": draw(log_uniform(0.5, 10.0))}


# -- CONV_2D ---------------------------------------------------------------------------------------------

@st.composite
def conv2d_cases(draw) -> dict:
    dtype = draw(DTYPES)
    padding = draw(PADDINGS)
    kernel = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    dilation = draw(DILATIONS)
    h = _window(draw, padding, kernel[0], dilation[0])
    w = _window(draw, padding, kernel[1], dilation[1])
    return dict(dtype=dtype, input_shape=(draw(st.integers(1, 2)), h, w, draw(st.integers(1, 6))),
                out_channels=draw(st.integers(1, 6)), kernel=kernel,
                stride=(draw(st.integers(1, 3)), draw(st.integers(1, 3))), dilation=dilation, padding=padding,
                activation=draw(ACTIVATIONS), per_channel=draw(st.booleans()), seed=draw(SEEDS),
                **_bias_params(draw, dtype, CONV_BIASES), **_quant_params(draw, dtype))


@given(case=conv2d_cases())
def test_conv2d_matches_tflm(case):
    check(conv2d_model(**case))


CONV2D_NAMED = {
    "3x3 stride 2 SAME": dict(kernel=(3, 3), stride=(2, 2), padding="SAME", in_zp=-5, out_zp=3),
    "1x1 pointwise": dict(input_shape=(1, 5, 5, 8), out_channels=16, kernel=(1, 1), in_zp=12),
    "3x3 VALID RELU6 per-tensor": dict(padding="VALID", activation="RELU6", per_channel=False, out_zp=-20),
    "dilation 2": dict(input_shape=(1, 9, 9, 2), dilation=(2, 2), padding="SAME"),
    "stride 2 even input SAME (odd padding after)": dict(input_shape=(1, 8, 8, 3), kernel=(2, 2), stride=(2, 2)),
    "5x5 kernel larger than input SAME": dict(input_shape=(1, 3, 3, 2), kernel=(5, 5)),
    "batch 2 stride (1, 2) RELU": dict(input_shape=(2, 6, 7, 3), stride=(1, 2), activation="RELU"),
    "no bias": dict(bias=None, in_zp=-128),
    "int16 int64 bias": dict(dtype="int16", activation="RELU"),
    "int16 int32 bias": dict(dtype="int16", bias="int32"),
    "int16 no bias": dict(dtype="int16", bias=None, stride=(2, 2)),
    "int16 no bias, quantized_bias_type int32": dict(dtype="int16", bias=None, quantized_bias_type="int32"),
    "float32 3x3 SAME": dict(dtype="float32"),
    "float32 RELU_N1_TO_1 VALID": dict(dtype="float32", activation="RELU_N1_TO_1", padding="VALID"),
    "grouped conv (2 groups)": dict(input_shape=(1, 6, 6, 4), out_channels=4, groups=2),
}


@pytest.mark.parametrize("case", CONV2D_NAMED.values(), ids=CONV2D_NAMED.keys())
def test_conv2d_named(case):
    check(conv2d_model(**case))


# -- DEPTHWISE_CONV_2D -----------------------------------------------------------------------------------

@st.composite
def depthwise_cases(draw) -> dict:
    dtype = draw(DTYPES)
    padding = draw(PADDINGS)
    kernel = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    dilation = draw(DILATIONS)
    h = _window(draw, padding, kernel[0], dilation[0])
    w = _window(draw, padding, kernel[1], dilation[1])
    return dict(dtype=dtype, input_shape=(draw(st.integers(1, 2)), h, w, draw(st.integers(1, 5))),
                depth_multiplier=draw(st.integers(1, 3)), kernel=kernel,
                stride=(draw(st.integers(1, 3)), draw(st.integers(1, 3))), dilation=dilation, padding=padding,
                activation=draw(ACTIVATIONS), per_channel=draw(st.booleans()),
                bias=draw(st.sampled_from(DEPTHWISE_BIASES[dtype])), seed=draw(SEEDS), **_quant_params(draw, dtype))


@given(case=depthwise_cases())
def test_depthwise_conv2d_matches_tflm(case):
    check(depthwise_model(**case))


DEPTHWISE_NAMED = {
    "3x3 stride 1 SAME": dict(in_zp=-7, out_zp=4),
    "depth multiplier 2": dict(depth_multiplier=2),
    "3x3 stride 2 VALID RELU6": dict(stride=(2, 2), padding="VALID", activation="RELU6"),
    "dilation 2": dict(input_shape=(1, 9, 9, 4), dilation=(2, 2)),
    "single channel multiplier 8": dict(input_shape=(1, 6, 6, 1), depth_multiplier=8),
    "kernel larger than input SAME": dict(input_shape=(1, 2, 2, 3), kernel=(3, 3)),
    "per-tensor filter no bias": dict(per_channel=False, bias=None),
    "int16 int64 bias": dict(dtype="int16"),
    "int16 no bias stride 2": dict(dtype="int16", bias=None, stride=(2, 2)),
    "float32 RELU": dict(dtype="float32", activation="RELU"),
}


@pytest.mark.parametrize("case", DEPTHWISE_NAMED.values(), ids=DEPTHWISE_NAMED.keys())
def test_depthwise_conv2d_named(case):
    check(depthwise_model(**case))


# -- TRANSPOSE_CONV --------------------------------------------------------------------------------------

@st.composite
def transpose_conv_cases(draw) -> dict:
    dtype = draw(DTYPES)
    padding = draw(PADDINGS)
    kernel = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    oh = _window(draw, padding, kernel[0])
    ow = _window(draw, padding, kernel[1])
    return dict(dtype=dtype, output_shape=(draw(st.integers(1, 2)), oh, ow, draw(st.integers(1, 4))),
                in_channels=draw(st.integers(1, 4)), kernel=kernel,
                stride=(draw(st.integers(1, 3)), draw(st.integers(1, 3))), padding=padding,
                activation=draw(ACTIVATIONS), per_channel=draw(st.booleans()),
                bias=draw(st.sampled_from(DEPTHWISE_BIASES[dtype])), seed=draw(SEEDS), **_quant_params(draw, dtype))


@given(case=transpose_conv_cases())
def test_transpose_conv_matches_tflm(case):
    check(transpose_conv_model(**case))


TRANSPOSE_CONV_NAMED = {
    "3x3 stride 2 SAME (2x upsample)": dict(in_zp=9, out_zp=-2),
    "2x2 stride 2 VALID": dict(output_shape=(1, 8, 8, 2), kernel=(2, 2), padding="VALID"),
    "4x4 stride 2 SAME": dict(output_shape=(1, 6, 6, 3), kernel=(4, 4)),
    "stride 1 SAME RELU": dict(stride=(1, 1), activation="RELU"),
    "per-tensor filter no bias": dict(per_channel=False, bias=None),
    "int16 int64 bias": dict(dtype="int16"),
    "float32 3x3 stride 2": dict(dtype="float32"),
    "float32 no bias VALID": dict(dtype="float32", bias=None, padding="VALID", output_shape=(1, 7, 7, 2)),
}


@pytest.mark.parametrize("case", TRANSPOSE_CONV_NAMED.values(), ids=TRANSPOSE_CONV_NAMED.keys())
def test_transpose_conv_named(case):
    check(transpose_conv_model(**case))


# -- FULLY_CONNECTED -------------------------------------------------------------------------------------

@st.composite
def fully_connected_cases(draw) -> dict:
    dtype = draw(DTYPES)
    leading = draw(st.lists(st.integers(1, 3), max_size=2))
    input_shape = (*leading, draw(st.integers(1, 32)))
    return dict(dtype=dtype, input_shape=input_shape, units=draw(st.integers(1, 16)),
                keep_num_dims=draw(st.booleans()) and len(input_shape) > 1, activation=draw(ACTIVATIONS),
                per_channel=dtype != "float32" and draw(st.booleans()), seed=draw(SEEDS),
                **_bias_params(draw, dtype, CONV_BIASES), **_quant_params(draw, dtype))


@given(case=fully_connected_cases())
def test_fully_connected_matches_tflm(case):
    check(fully_connected_model(**case))


FULLY_CONNECTED_NAMED = {
    "vector 1x16 to 8": dict(in_zp=-128, out_zp=17),
    "batch 4x10 to 3 RELU": dict(input_shape=(4, 10), units=3, activation="RELU"),
    "per-channel weights": dict(per_channel=True, input_shape=(2, 12), units=5),
    "single unit (one scale is per-tensor)": dict(per_channel=True, units=1, in_zp=4),
    "keep_num_dims 3-D input": dict(input_shape=(2, 3, 6), keep_num_dims=True),
    "3-D input flattened to rows": dict(input_shape=(2, 3, 6), keep_num_dims=False),
    "no bias": dict(bias=None),
    "int16 int64 bias": dict(dtype="int16"),
    "int16 int32 bias": dict(dtype="int16", bias="int32"),
    "int16 no bias": dict(dtype="int16", bias=None),
    "int16 no bias, quantized_bias_type int32": dict(dtype="int16", bias=None, quantized_bias_type="int32"),
    "float32 RELU6": dict(dtype="float32", activation="RELU6"),
}


@pytest.mark.parametrize("case", FULLY_CONNECTED_NAMED.values(), ids=FULLY_CONNECTED_NAMED.keys())
def test_fully_connected_named(case):
    check(fully_connected_model(**case))
