"""Elementwise ops against TFLite Micro: ADD, SUB, MUL (with broadcasting), LEAKY_RELU, QUANTIZE,
DEQUANTIZE, LOGISTIC, TANH, RELU, RELU6 and SOFTMAX.

Quantization parameters are drawn where TFLite Micro leaves them free and pinned where its Prepare fixes
them: int16 zero points 0; softmax int8 output 1/256 with zero point -128; logistic int8 output 1/256, -128;
tanh int8 output 1/128, 0; int16 logistic/tanh output 2^-15; RELU6 keeps its input's quantization.
Float inputs are scaled so clamps and saturating tails are reached.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.tflite_models import ACTIVATIONS, SEEDS, binary_model, check, log_uniform, unary_model, zero_points

DTYPES = st.sampled_from(["int8", "int16", "float32"])


@st.composite
def shapes(draw, max_rank: int = 4, max_dim: int = 6) -> tuple[int, ...]:
    return tuple(draw(st.lists(st.integers(1, max_dim), min_size=1, max_size=max_rank)))


def _quant(draw, dtype: str, lo: float = 0.005, hi: float = 0.5) -> tuple[float, int]:
    return draw(log_uniform(lo, hi)), draw(zero_points(dtype))


# -- ADD / SUB / MUL -------------------------------------------------------------------------------------

@st.composite
def broadcast_pairs(draw) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes cut from one base shape: any dimension may be 1 and the second may drop leading ones."""
    base = draw(shapes())
    first = tuple(1 if draw(st.booleans()) and draw(st.booleans()) else d for d in base)
    rank2 = draw(st.integers(1, len(base)))
    second = tuple(1 if draw(st.booleans()) and draw(st.booleans()) else d for d in base[len(base) - rank2:])
    return (first, second) if draw(st.booleans()) else (second, first)


@st.composite
def binary_cases(draw) -> dict:
    op = draw(st.sampled_from(["ADD", "SUB", "MUL"]))
    dtype = draw(DTYPES)
    shape1, shape2 = draw(broadcast_pairs())
    q1, q2 = _quant(draw, dtype), _quant(draw, dtype)
    if op == "MUL":  # products of two quantized values: the output unit is a multiple of s1*s2
        product_range = log_uniform(10, 3000) if dtype == "int8" else log_uniform(1e3, 1e6)
        out_scale = q1[0] * q2[0] * draw(product_range)
    else:
        out_scale = max(q1[0], q2[0]) * draw(log_uniform(0.3, 4.0))
    return dict(op=op, dtype=dtype, shape1=shape1, shape2=shape2, activation=draw(ACTIVATIONS), quant1=q1,
                quant2=q2, out_quant=(out_scale, draw(zero_points(dtype))),
                constant_second=draw(st.booleans()), seed=draw(SEEDS))


@given(case=binary_cases())
def test_binary_matches_tflm(case):
    check(binary_model(**case))


BINARY_NAMED = {}
for _op in ("ADD", "SUB", "MUL"):
    _out = (0.002, 3) if _op == "MUL" else (0.1, -4)
    BINARY_NAMED.update({
        f"{_op} same shape": dict(op=_op, quant1=(0.05, -10), quant2=(0.03, 20), out_quant=_out),
        f"{_op} broadcast row vector (constant)": dict(op=_op, shape1=(4, 6), shape2=(1, 6), constant_second=True,
                                                      quant1=(0.05, 5), quant2=(0.02, -3), out_quant=_out),
        f"{_op} broadcast channel vector 4-D": dict(op=_op, shape1=(1, 3, 3, 4), shape2=(4,), out_quant=_out),
        f"{_op} broadcast both ways": dict(op=_op, shape1=(2, 1, 5), shape2=(3, 1), out_quant=_out),
        f"{_op} scalar operand": dict(op=_op, shape1=(1, 4, 4, 2), shape2=(1,), constant_second=True,
                                      out_quant=_out),
        f"{_op} RELU6 fused": dict(op=_op, activation="RELU6", out_quant=(0.05, -100) if _op != "MUL" else _out),
        f"{_op} int16": dict(op=_op, dtype="int16", quant1=(1e-3, 0), quant2=(2e-3, 0),
                             out_quant=(0.06, 0) if _op == "MUL" else (3e-3, 0)),
        f"{_op} float32 broadcast RELU": dict(op=_op, dtype="float32", shape1=(2, 3, 4), shape2=(3, 1),
                                              activation="RELU"),
    })


@pytest.mark.parametrize("case", BINARY_NAMED.values(), ids=BINARY_NAMED.keys())
def test_binary_named(case):
    check(binary_model(**case))


# -- activations -----------------------------------------------------------------------------------------

@st.composite
def relu_cases(draw) -> dict:
    """RELU requantizes from input to output; RELU6 runs in its input's quantization, in which 6 must fit."""
    op = draw(st.sampled_from(["RELU", "RELU6"]))
    dtype = draw(DTYPES)
    shape = draw(shapes())
    if op == "RELU":
        in_q = _quant(draw, dtype)
        out_q = (in_q[0] * draw(log_uniform(0.3, 3.0)), draw(zero_points(dtype)))
    else:
        zp = draw(st.integers(-128, 100)) if dtype == "int8" else 0
        qmax = 127 if dtype == "int8" else 32767
        in_q = out_q = (draw(log_uniform(6.0 / (qmax - zp) * 1.01, 0.5)), zp)
    return dict(op=op, dtype=dtype, shape=shape, in_quant=in_q, out_quant=out_q)


@given(case=relu_cases())
def test_relu_matches_tflm(case):
    check(unary_model(**case), float_scale=5.0)


@st.composite
def leaky_relu_cases(draw) -> dict:
    dtype = draw(DTYPES)
    in_q = _quant(draw, dtype)
    out_q = (in_q[0] * draw(log_uniform(0.3, 3.0)), draw(zero_points(dtype)))
    alpha = draw(st.one_of(st.floats(0.01, 0.99), st.floats(1.0, 3.0)))
    return dict(op="LEAKY_RELU", dtype=dtype, shape=draw(shapes()), in_quant=in_q, out_quant=out_q, alpha=alpha)


@given(case=leaky_relu_cases())
def test_leaky_relu_matches_tflm(case):
    check(unary_model(**case), float_scale=3.0)


@st.composite
def logistic_tanh_cases(draw, dtypes=("int8", "int16", "float32")) -> dict:
    op = draw(st.sampled_from(["LOGISTIC", "TANH"]))
    dtype = draw(st.sampled_from(dtypes))
    if dtype == "int8":
        in_q = _quant(draw, dtype, 0.01, 0.5)
        out_q = (1 / 256, -128) if op == "LOGISTIC" else (1 / 128, 0)
    elif dtype == "int16":
        # Power-of-two input scales take TFLite's table path without rescaling; others rescale first.
        in_q = (draw(st.one_of(st.sampled_from([2.0 ** -12, 2.0 ** -11]), log_uniform(1e-4, 1e-3))), 0)
        out_q = (2.0 ** -15, 0)
    else:
        in_q = out_q = (None, None)
    return dict(op=op, dtype=dtype, shape=draw(shapes()), in_quant=in_q, out_quant=out_q)


@given(case=logistic_tanh_cases())
def test_logistic_tanh_matches_tflm(case):
    check(unary_model(**case), float_scale=8.0)


ACTIVATION_NAMED = {
    "RELU int8 same quantization": dict(op="RELU", in_quant=(0.05, -20), out_quant=(0.05, -20)),
    "RELU int8 requantized": dict(op="RELU", in_quant=(0.05, 10), out_quant=(0.02, -128)),
    "RELU int16": dict(op="RELU", dtype="int16", in_quant=(1e-3, 0), out_quant=(5e-4, 0)),
    "RELU float32": dict(op="RELU", dtype="float32"),
    "RELU6 int8 zp -128": dict(op="RELU6", in_quant=(6 / 255, -128), out_quant=(6 / 255, -128)),
    "RELU6 int8 wide range": dict(op="RELU6", in_quant=(0.1, 0), out_quant=(0.1, 0)),
    "RELU6 int16": dict(op="RELU6", dtype="int16", in_quant=(4e-4, 0), out_quant=(4e-4, 0)),
    "RELU6 float32": dict(op="RELU6", dtype="float32"),
    "LEAKY_RELU alpha 0.2 int8": dict(op="LEAKY_RELU", alpha=0.2, in_quant=(0.05, 3), out_quant=(0.04, -7)),
    "LEAKY_RELU alpha 1.5 int8": dict(op="LEAKY_RELU", alpha=1.5, in_quant=(0.05, 0), out_quant=(0.1, 0)),
    "LEAKY_RELU int16": dict(op="LEAKY_RELU", dtype="int16", alpha=0.1, in_quant=(1e-3, 0), out_quant=(1e-3, 0)),
    "LEAKY_RELU float32": dict(op="LEAKY_RELU", dtype="float32", alpha=0.3),
    "LOGISTIC int8": dict(op="LOGISTIC", in_quant=(0.1, 5), out_quant=(1 / 256, -128)),
    "LOGISTIC int8 tiny input scale": dict(op="LOGISTIC", in_quant=(0.002, 0), out_quant=(1 / 256, -128)),
    "LOGISTIC int16 power-of-two scale": dict(op="LOGISTIC", dtype="int16", in_quant=(2 ** -12, 0),
                                              out_quant=(2 ** -15, 0)),
    "LOGISTIC int16 other scale": dict(op="LOGISTIC", dtype="int16", in_quant=(3e-4, 0), out_quant=(2 ** -15, 0)),
    "LOGISTIC float32": dict(op="LOGISTIC", dtype="float32"),
    "TANH int8": dict(op="TANH", in_quant=(0.05, -3), out_quant=(1 / 128, 0)),
    "TANH int16 power-of-two scale": dict(op="TANH", dtype="int16", in_quant=(2 ** -11, 0), out_quant=(2 ** -15, 0)),
    "TANH int16 other scale": dict(op="TANH", dtype="int16", in_quant=(5e-4, 0), out_quant=(2 ** -15, 0)),
    "TANH float32": dict(op="TANH", dtype="float32"),
}


@pytest.mark.parametrize("case", ACTIVATION_NAMED.values(), ids=ACTIVATION_NAMED.keys())
def test_activation_named(case):
    check(unary_model(**case), float_scale=8.0)


# -- SOFTMAX ---------------------------------------------------------------------------------------------

SOFTMAX_TYPES = {("int8", "int8"): (1 / 256, -128), ("int8", "int16"): (1 / 65536, -32768),
                 ("int16", "int16"): (1 / 32768, 0), ("float32", "float32"): (None, None)}


@st.composite
def softmax_cases(draw) -> dict:
    dtype, out_dtype = draw(st.sampled_from(sorted(SOFTMAX_TYPES)))
    in_q = {"int8": lambda: _quant(draw, "int8", 0.01, 0.5), "int16": lambda: (draw(log_uniform(1e-4, 1e-3)), 0),
            "float32": lambda: (None, None)}[dtype]()
    return dict(op="SOFTMAX", dtype=dtype, out_dtype=out_dtype, shape=draw(shapes(max_dim=16)), in_quant=in_q,
                out_quant=SOFTMAX_TYPES[(dtype, out_dtype)], beta=draw(log_uniform(0.1, 3.0)))


@given(case=softmax_cases())
def test_softmax_matches_tflm(case):
    check(unary_model(**case), float_scale=3.0)


SOFTMAX_NAMED = {
    "int8 classifier 1x10": dict(shape=(1, 10), in_quant=(0.1, 12)),
    "int8 rows 4x5 beta 0.5": dict(shape=(4, 5), in_quant=(0.05, -3), beta=0.5),
    "int8 single class": dict(shape=(2, 1), in_quant=(0.1, 0)),
    "int8 to int16": dict(shape=(3, 7), in_quant=(0.08, 4), out_dtype="int16", out_quant=(1 / 65536, -32768)),
    "int16": dict(dtype="int16", shape=(2, 9), in_quant=(5e-4, 0), out_quant=(1 / 32768, 0)),
    "float32 4-D": dict(dtype="float32", shape=(1, 2, 3, 6), in_quant=(None, None), out_quant=(None, None)),
}


@pytest.mark.parametrize("case", SOFTMAX_NAMED.values(), ids=SOFTMAX_NAMED.keys())
def test_softmax_named(case):
    check(unary_model(**{"op": "SOFTMAX", "beta": 1.0, "out_quant": (1 / 256, -128), **case}), float_scale=3.0)


# -- QUANTIZE / DEQUANTIZE -------------------------------------------------------------------------------

@st.composite
def quantize_cases(draw) -> tuple[dict, float]:
    """(model parameters, float input scale): float inputs span the output's quantized range."""
    dtype, out_dtype = draw(st.sampled_from([("float32", "int8"), ("float32", "int16"), ("int8", "int8"),
                                             ("int16", "int16"), ("int8", "int16"), ("int16", "int8")]))
    small = {"int8": (0.005, 0.5), "int16": (1e-4, 1e-2), "float32": (None, None)}
    if dtype == "float32":
        in_q = (None, None)
        out_q = _quant(draw, out_dtype, *small[out_dtype])
    else:
        in_q = _quant(draw, dtype, *small[dtype])
        real_range = in_q[0] * (127 if dtype == "int8" else 32767)
        out_unit = real_range / (127 if out_dtype == "int8" else 32767)
        out_q = (out_unit * draw(log_uniform(0.3, 3.0)), draw(zero_points(out_dtype)))
    float_scale = (out_q[0] or 1.0) * (60 if out_dtype == "int8" else 15000)
    return dict(op="QUANTIZE", dtype=dtype, out_dtype=out_dtype, shape=draw(shapes()), in_quant=in_q,
                out_quant=out_q), float_scale


@given(case=quantize_cases())
def test_quantize_matches_tflm(case):
    params, float_scale = case
    check(unary_model(**params), float_scale=float_scale)


@st.composite
def dequantize_cases(draw) -> dict:
    dtype = draw(st.sampled_from(["int8", "int16"]))
    return dict(op="DEQUANTIZE", dtype=dtype, out_dtype="float32", shape=draw(shapes()),
                in_quant=_quant(draw, dtype, 1e-4, 1.0), out_quant=(None, None))


@given(case=dequantize_cases())
def test_dequantize_matches_tflm(case):
    check(unary_model(**case))


QUANTIZE_NAMED = {
    "float32 to int8": (dict(dtype="float32", out_dtype="int8", in_quant=(None, None), out_quant=(0.02, -5)), 2.0),
    "float32 to int16": (dict(dtype="float32", out_dtype="int16", in_quant=(None, None), out_quant=(1e-4, 0)), 2.0),
    "int8 requantize": (dict(dtype="int8", out_dtype="int8", in_quant=(0.05, 10), out_quant=(0.03, -20)), 1.0),
    "int8 to int16": (dict(dtype="int8", out_dtype="int16", in_quant=(0.05, 3), out_quant=(2e-4, 0)), 1.0),
    "int16 to int8": (dict(dtype="int16", out_dtype="int8", in_quant=(2e-4, 0), out_quant=(0.05, -1)), 1.0),
    "int16 requantize": (dict(dtype="int16", out_dtype="int16", in_quant=(2e-4, 0), out_quant=(3e-4, 0)), 1.0),
    "int8 dequantize": (dict(op="DEQUANTIZE", dtype="int8", out_dtype="float32", in_quant=(0.05, -7),
                             out_quant=(None, None)), 1.0),
    "int16 dequantize": (dict(op="DEQUANTIZE", dtype="int16", out_dtype="float32", in_quant=(1e-3, 0),
                              out_quant=(None, None)), 1.0),
}


@pytest.mark.parametrize("case", QUANTIZE_NAMED.values(), ids=QUANTIZE_NAMED.keys())
def test_quantize_dequantize_named(case):
    params, float_scale = case
    check(unary_model(**{"op": "QUANTIZE", **params}), float_scale=float_scale)


def test_quantize_rounds_halves_away_from_zero():
    """Inputs exactly halfway between levels (x / 0.5 = k + 0.5), plus the saturation ends."""
    model = unary_model("QUANTIZE", dtype="float32", out_dtype="int8", shape=(1, 256), in_quant=(None, None),
                        out_quant=(0.5, 1))
    halves = (np.arange(-128, 128, dtype=np.float32) + 0.5) * np.float32(0.5)
    halves[:2], halves[-2:] = [-1e6, -64.25], [63.75, 1e6]
    check(model, samples=[[halves.reshape(1, 256)]])

