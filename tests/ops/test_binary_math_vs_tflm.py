"""Binary math ops against TFLite Micro: MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, DIV, FLOOR_DIV, FLOOR_MOD, the
comparisons and the logical ops, with numpy broadcasting (up to 4-D: TFLite Micro's comparison, logical and
squared-difference kernels broadcast 4-D at most).

Where TFLite Micro has no kernel the oracle is numpy: POW (float32; the C calls powf, numpy's float32 power
calls the same libm function, compared within 1e-6) and int32 FLOOR_DIV / FLOOR_MOD (TFLite's own semantics,
which numpy's floor_divide and mod share). Float outputs of the other ops are compared with TFLite Micro
within model_check's 1e-5 relative tolerance; integer and bool outputs byte for byte.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from micro_relay.compiler import compile_graph
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.passes import run_pipeline
from support.c_harness import compile_and_run
from support.tflite_binary_models import COMPARISONS, LOGICAL, binary_op_model, logical_not_model, samples
from support.tflite_models import SEEDS, check, log_uniform, zero_points

ACTIVATIONS = st.sampled_from(["NONE", "RELU", "RELU6", "RELU_N1_TO_1"])
OP_DTYPES = {
    "MAXIMUM": ("int8", "int16", "int32", "float32"),
    "MINIMUM": ("int8", "int16", "int32", "float32"),
    "SQUARED_DIFFERENCE": ("int8", "float32"),
    "DIV": ("float32",),
    "FLOOR_DIV": ("float32",),
    "FLOOR_MOD": ("float32",),
    **{op: ("int8", "int32", "float32") for op in COMPARISONS},
    "EQUAL": ("bool", "int8", "int32", "float32"),
    "NOT_EQUAL": ("bool", "int8", "int32", "float32"),
    **{op: ("bool",) for op in LOGICAL},
}


@st.composite
def broadcast_pairs(draw, max_rank: int = 4, max_dim: int = 6) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes cut from one base shape: any dimension may be 1 and the second may drop leading ones."""
    base = draw(st.lists(st.integers(1, max_dim), min_size=1, max_size=max_rank))
    first = tuple(1 if draw(st.booleans()) and draw(st.booleans()) else d for d in base)
    rank2 = draw(st.integers(1, len(base)))
    second = tuple(1 if draw(st.booleans()) and draw(st.booleans()) else d for d in base[len(base) - rank2:])
    return (first, second) if draw(st.booleans()) else (second, first)


def _quant(draw, dtype: str, lo: float = 0.005, hi: float = 0.5):
    return (draw(log_uniform(lo, hi)), draw(zero_points(dtype))) if dtype in ("int8", "int16") else None


@st.composite
def binary_cases(draw) -> dict:
    op = draw(st.sampled_from(sorted(OP_DTYPES)))
    dtype = draw(st.sampled_from(OP_DTYPES[op]))
    shape1, shape2 = draw(broadcast_pairs())
    q1, q2 = _quant(draw, dtype), _quant(draw, dtype)
    if op in COMPARISONS and draw(st.booleans()) and q1:  # equal scales: the rescale is exact both ways
        q2 = (q1[0], q2[1])
    out_q = None
    if op == "SQUARED_DIFFERENCE" and q1:
        out_q = (max(q1[0], q2[0]) ** 2 * draw(log_uniform(10, 1e4)), draw(zero_points(dtype)))
    elif q1:
        out_q = (max(q1[0], q2[0]), draw(zero_points(dtype)))
    options = {"activation": draw(ACTIVATIONS)} if op == "DIV" else {}
    return dict(op=op, dtype=dtype, shape1=shape1, shape2=shape2, quant1=q1, quant2=q2, out_quant=out_q,
                constant_second=draw(st.booleans()), seed=draw(SEEDS), **options)


@given(case=binary_cases())
def test_binary_math_matches_tflm(case):
    check(binary_op_model(**case), float_scale=3.0)


def _not_zp(zero_point: int):
    """Replaces every divisor equal to its zero point (a quotient TFLite Micro leaves undefined)."""
    return lambda index, v: np.where(v == zero_point, zero_point + 1 if zero_point < 127 else zero_point - 1, v) \
        if index == 1 else v


@st.composite
def divide_s8_cases(draw) -> dict:
    """int8 DIV with s1 / (s2 * so) in the range Micro Relay runs exactly (divide.py: shift 7..23)."""
    shape1, shape2 = draw(broadcast_pairs())
    q1, q2 = _quant(draw, "int8"), _quant(draw, "int8")
    ratio = draw(log_uniform(66, 2 ** 22))
    return dict(op="DIV", shape1=shape1, shape2=shape2, quant1=q1, quant2=q2,
                out_quant=(q1[0] / (q2[0] * ratio), draw(zero_points("int8"))), activation=draw(ACTIVATIONS))


@given(case=divide_s8_cases())
def test_divide_int8_matches_tflm(case):
    model = binary_op_model(**case)
    check(model, samples=samples(model, fix=_not_zp(case["quant2"][1])))


NAMED = {
    "MAXIMUM int8 relu-like against a constant 0": dict(op="MAXIMUM", shape1=(1, 49, 10, 1), shape2=(1,),
                                                       constant_second=True, quant1=(0.1, -5), quant2=(0.1, -5)),
    "MINIMUM float32 clip 96x96 image": dict(op="MINIMUM", dtype="float32", shape1=(1, 96, 96, 1), shape2=(1,),
                                            constant_second=True),
    "MAXIMUM int16 channel vector": dict(op="MAXIMUM", dtype="int16", shape1=(1, 4, 4, 64), shape2=(64,),
                                         quant1=(1e-3, 0), quant2=(1e-3, 0), out_quant=(1e-3, 0)),
    "MAXIMUM int32 rows": dict(op="MAXIMUM", dtype="int32", shape1=(6, 8), shape2=(6, 1)),
    "SQUARED_DIFFERENCE int8 pooled vector minus mean": dict(op="SQUARED_DIFFERENCE", shape1=(1, 1, 1, 1280),
                                                             shape2=(1, 1, 1, 1), quant1=(0.02, -3),
                                                             quant2=(0.02, 4), out_quant=(0.01, -128)),
    "SQUARED_DIFFERENCE float32 layer norm": dict(op="SQUARED_DIFFERENCE", dtype="float32", shape1=(1, 16, 64),
                                                  shape2=(1, 16, 1)),
    "DIV float32 by a constant vector RELU": dict(op="DIV", dtype="float32", shape1=(1, 8, 8, 16), shape2=(16,),
                                                  constant_second=True, activation="RELU"),
    "FLOOR_DIV float32": dict(op="FLOOR_DIV", dtype="float32", shape1=(4, 8), shape2=(8,)),
    "FLOOR_MOD float32 scalar": dict(op="FLOOR_MOD", dtype="float32", shape1=(4, 8), shape2=(1,)),
    "GREATER int8 different scales": dict(op="GREATER", shape1=(1, 49, 10, 1), shape2=(1, 49, 10, 1),
                                          quant1=(0.05, 3), quant2=(0.03, -20)),
    "LESS_EQUAL int8 threshold constant": dict(op="LESS_EQUAL", shape1=(1, 1, 1, 1280), shape2=(1,),
                                               constant_second=True, quant1=(0.1, 0), quant2=(0.2, 10)),
    "EQUAL int32 labels": dict(op="EQUAL", dtype="int32", shape1=(8, 10), shape2=(8, 1)),
    "NOT_EQUAL bool": dict(op="NOT_EQUAL", dtype="bool", shape1=(3, 5), shape2=(5,)),
    "GREATER_EQUAL float32": dict(op="GREATER_EQUAL", dtype="float32", shape1=(2, 3, 4), shape2=(3, 1)),
    "LOGICAL_OR masks": dict(op="LOGICAL_OR", dtype="bool", shape1=(1, 8, 8, 8), shape2=(8,)),
    "LOGICAL_AND masks": dict(op="LOGICAL_AND", dtype="bool", shape1=(4, 1), shape2=(1, 6)),
}


@pytest.mark.parametrize("case", NAMED.values(), ids=NAMED.keys())
def test_binary_math_named(case):
    check(binary_op_model(**case), float_scale=3.0)


def test_divide_int8_named():
    case = dict(op="DIV", shape1=(1, 8, 8, 16), shape2=(16,), quant1=(0.1, 2), quant2=(0.1, -3), out_quant=(5e-4, 0))
    model = binary_op_model(**case)
    check(model, samples=samples(model, fix=_not_zp(-3)))


@pytest.mark.parametrize("activation", ["NONE", "RELU6"])
def test_divide_int32_matches_tflm(activation):
    """Signs both ways and truncation toward zero; no zero divisor (TFLite Micro crashes on one)."""
    model = binary_op_model("DIV", "int32", (4, 16), (16,), activation=activation)
    rng = np.random.default_rng(3)
    divisors = rng.integers(1, 40, 16) * rng.choice([-1, 1], 16)
    inputs = [[rng.integers(-2000, 2000, (4, 16)).astype(np.int32), divisors.astype(np.int32)] for _ in range(2)]
    check(model, samples=inputs)


@pytest.mark.parametrize("shape", [(1, 49, 10, 1), (2, 3)], ids=["KWS features", "matrix"])
def test_logical_not(shape):
    check(logical_not_model(shape))


# -- numpy as the oracle where TFLite Micro has no kernel ------------------------------------------------

def _compiled(model: bytes, inputs: list[np.ndarray]) -> np.ndarray:
    graph = run_pipeline(read_tflite(model, "test model"))
    with tempfile.TemporaryDirectory() as tmp:
        return compile_and_run(graph, [inputs], Path(tmp))[0][0]


@given(shapes=broadcast_pairs(), seed=SEEDS)
def test_power_matches_numpy(shapes, seed):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.05, 4.0, shapes[0]).astype(np.float32)
    exponent = rng.uniform(-3.0, 3.0, shapes[1]).astype(np.float32)
    ours = _compiled(binary_op_model("POW", "float32", shapes[0], shapes[1]), [base, exponent])
    np.testing.assert_allclose(ours, np.power(base, exponent), rtol=1e-6)


@pytest.mark.parametrize("op", ["FLOOR_DIV", "FLOOR_MOD"])
def test_int32_floor_ops_match_numpy(op):
    """Every sign combination, a zero divisor and INT32_MIN / -1 (numpy gives 0 and INT32_MIN / 0 there)."""
    a = np.array([7, -7, 7, -7, 0, 5, -(2 ** 31), -(2 ** 31), 2 ** 31 - 1, 13], dtype=np.int32)
    b = np.array([2, 2, -2, -2, 3, 0, -1, 7, -5, 13], dtype=np.int32)
    ours = _compiled(binary_op_model(op, "int32", a.shape, b.shape), [a, b])
    with np.errstate(all="ignore"):
        expected = np.floor_divide(a, b) if op == "FLOOR_DIV" else np.mod(a, b)
    np.testing.assert_array_equal(ours, expected)


# -- refusals --------------------------------------------------------------------------------------------

REFUSED = {
    "int8 DIV outside the exact shift range": (dict(op="DIV", quant1=(0.05, 0), quant2=(0.05, 0),
                                                    out_quant=(0.05, 0)), "int8 divide needs"),
    "int16 GREATER (TFLite Micro never prepares its multipliers)": (
        dict(op="GREATER", dtype="int16", quant1=(1e-3, 0), quant2=(1e-3, 0)), "supports"),
    "int8 LESS with a scale of 1 or more": (dict(op="LESS", quant1=(1.5, 0), quant2=(0.1, 0)), "scales below 1"),
    "int16 SQUARED_DIFFERENCE (overflows in TFLite Micro)": (
        dict(op="SQUARED_DIFFERENCE", dtype="int16", quant1=(1e-3, 0), quant2=(1e-3, 0), out_quant=(1e-3, 0)),
        "supports"),
    "LOGICAL_AND of int8": (dict(op="LOGICAL_AND", dtype="int8"), "supports"),
}


@pytest.mark.parametrize("case, message", REFUSED.values(), ids=REFUSED.keys())
def test_refused_with_one_line(case, message):
    model = binary_op_model(**case)
    graph = run_pipeline(read_tflite(model, "test model"))
    with pytest.raises(CompileError, match=message) as info:
        compile_graph(graph, "model", "test model")
    assert "\n" not in str(info.value)
