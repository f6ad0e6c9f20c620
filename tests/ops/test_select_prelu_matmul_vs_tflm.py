"""SELECT / SELECT_V2, PRELU and BATCH_MATMUL against TFLite Micro.

SELECT_V2 broadcasts condition, x and y three ways (drawn up to 4-D; TFLite Micro's kernel goes to 5-D).
TFLite Micro has no SELECT (v1) kernel: a SELECT model is compiled and compared with TFLite Micro running the
SELECT_V2 model that means the same (a row condition [n] reshaped to [n, 1, ...]). BATCH_MATMUL takes two
runtime operands (attention) or a constant rhs, batch dims broadcast, adj_x / adj_y; float32 within
model_check's 1e-5 relative tolerance, int8 and int16 byte for byte.
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
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.passes import run_pipeline
from support.c_harness import compile_and_run
from support.model_check import random_inputs
from support.tflite_binary_models import batch_matmul_model, prelu_model, select_model
from support.tflite_models import SEEDS, check, log_uniform, zero_points
from support.tflm_oracle import tflm_run


def _shape(draw, base) -> tuple[int, ...]:
    """A shape that broadcasts to `base`: some dims 1, maybe fewer leading dims."""
    rank = draw(st.integers(1, len(base)))
    return tuple(1 if draw(st.booleans()) and draw(st.booleans()) else d for d in base[len(base) - rank:])


@st.composite
def select_cases(draw) -> dict:
    base = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=4)))
    dtype = draw(st.sampled_from(["int8", "int16", "float32"]))
    quant = (draw(log_uniform(1e-3, 0.5)), draw(zero_points(dtype))) if dtype != "float32" else None
    return dict(op="SELECT_V2", dtype=dtype, cond_shape=_shape(draw, base), x_shape=_shape(draw, base),
                y_shape=_shape(draw, base), quant=quant)


@given(case=select_cases())
def test_select_v2_matches_tflm(case):
    check(select_model(**case))


SELECT_NAMED = {
    "int8 KWS mask": dict(cond_shape=(1, 49, 10, 1), x_shape=(1, 49, 10, 1), y_shape=(1,)),
    "float32 channel condition": dict(dtype="float32", cond_shape=(16,), x_shape=(1, 4, 4, 16),
                                      y_shape=(1, 4, 4, 16), quant=None),
    "int16 scalar condition": dict(dtype="int16", cond_shape=(1,), x_shape=(2, 8), y_shape=(2, 8), quant=(1e-3, 0)),
}


@pytest.mark.parametrize("case", SELECT_NAMED.values(), ids=SELECT_NAMED.keys())
def test_select_v2_named(case):
    check(select_model(**case))


@pytest.mark.parametrize("cond_shape, x_shape", [((2, 3, 4), (2, 3, 4)), ((3,), (3, 4, 2)), ((5,), (5,))],
                         ids=["same shape", "row vector", "vector"])
def test_select_v1_matches_tflm_select_v2(cond_shape, x_shape):
    v1 = select_model("SELECT", "int8", cond_shape, x_shape, x_shape)
    rows = cond_shape + (1,) * (len(x_shape) - len(cond_shape))
    v2 = select_model("SELECT_V2", "int8", rows, x_shape, x_shape)
    graph = run_pipeline(read_tflite(v1, "test model"))
    inputs = random_inputs(graph, np.random.default_rng(7))
    with tempfile.TemporaryDirectory() as tmp:
        ours = compile_and_run(graph, [inputs], Path(tmp))[0][0]
    theirs = tflm_run(v2, [inputs[0].reshape(rows), inputs[1], inputs[2]])[0]
    np.testing.assert_array_equal(ours, np.asarray(theirs).reshape(ours.shape))


# -- PRELU -----------------------------------------------------------------------------------------------

@st.composite
def prelu_cases(draw) -> dict:
    base = tuple(draw(st.lists(st.integers(1, 6), min_size=1, max_size=4)))
    dtype = draw(st.sampled_from(["int8", "int16", "float32"]))
    case = dict(dtype=dtype, shape=base, alpha_shape=_shape(draw, base), constant_alpha=draw(st.booleans()),
                seed=draw(SEEDS))
    if dtype != "float32":
        in_q = (draw(log_uniform(1e-4, 1e-2) if dtype == "int16" else log_uniform(0.005, 0.5)),
                draw(zero_points(dtype)))
        case.update(in_quant=in_q, alpha_quant=(draw(log_uniform(1e-3, 0.05)), draw(zero_points("int8"))),
                    out_quant=(in_q[0] * draw(log_uniform(0.3, 3.0)), draw(zero_points(dtype))))
    return case


@given(case=prelu_cases())
def test_prelu_matches_tflm(case):
    check(prelu_model(**case), float_scale=3.0)


PRELU_NAMED = {
    "int8 per-channel alpha [1, 1, C]": dict(shape=(1, 12, 12, 32), alpha_shape=(1, 1, 32), in_quant=(0.05, -10),
                                             alpha_quant=(0.004, -20), out_quant=(0.04, -30)),
    "int8 one alpha": dict(shape=(1, 49, 10, 8), alpha_shape=(1,), in_quant=(0.1, 0), alpha_quant=(0.002, 0),
                           out_quant=(0.1, 0)),
    "float32 channel alpha": dict(dtype="float32", shape=(1, 8, 8, 16), alpha_shape=(16,)),
    "int16 x, int8 alpha": dict(dtype="int16", shape=(1, 10, 16), alpha_shape=(16,), in_quant=(5e-4, 0),
                                alpha_quant=(0.005, 7), out_quant=(4e-4, 0)),
}


@pytest.mark.parametrize("case", PRELU_NAMED.values(), ids=PRELU_NAMED.keys())
def test_prelu_named(case):
    check(prelu_model(**case), float_scale=3.0)


# -- BATCH_MATMUL ----------------------------------------------------------------------------------------

@st.composite
def batch_matmul_cases(draw) -> dict:
    dtype = draw(st.sampled_from(["int8", "int16", "float32"]))
    rows, depth, cols = (draw(st.integers(1, 9)) for _ in range(3))
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    lhs_batch, rhs_batch = _shape(draw, batch) if batch else (), _shape(draw, batch) if batch else ()
    lhs_batch = lhs_batch if draw(st.booleans()) else batch
    adj_x, adj_y = draw(st.booleans()), draw(st.booleans())
    lhs = lhs_batch + ((depth, rows) if adj_x else (rows, depth))
    rhs = rhs_batch + ((cols, depth) if adj_y else (depth, cols))
    case = dict(dtype=dtype, lhs_shape=lhs, rhs_shape=rhs, adj_x=adj_x, adj_y=adj_y,
                constant_rhs=draw(st.booleans()), seed=draw(SEEDS))
    if dtype != "float32":
        lq = (draw(log_uniform(1e-3, 0.1)), draw(zero_points(dtype)))
        rq = (draw(log_uniform(1e-3, 0.1)), draw(zero_points(dtype)))
        spread = 74.0 * 74.0 if dtype == "int8" else 18918.0 ** 2
        typical = lq[0] * rq[0] * spread * depth ** 0.5 / (127 if dtype == "int8" else 32767)
        case.update(lhs_quant=lq, rhs_quant=rq, out_quant=(typical * draw(log_uniform(0.3, 3.0)),
                                                           draw(zero_points(dtype))))
    return case


@given(case=batch_matmul_cases())
def test_batch_matmul_matches_tflm(case):
    check(batch_matmul_model(**case))


MATMUL_NAMED = {
    "int8 attention scores Q K^T (4 heads, 16 tokens, 8 dims)": dict(
        lhs_shape=(1, 4, 16, 8), rhs_shape=(1, 4, 16, 8), adj_y=True, lhs_quant=(0.05, -3), rhs_quant=(0.04, 5),
        out_quant=(0.5, -10)),
    "int8 attention output A V": dict(lhs_shape=(4, 16, 16), rhs_shape=(4, 16, 8), lhs_quant=(1 / 256, -128),
                                      rhs_quant=(0.05, 2), out_quant=(0.05, 0)),
    "int8 constant weights broadcast over batch": dict(lhs_shape=(2, 3, 10, 12), rhs_shape=(12, 7), constant_rhs=True,
                                                       out_quant=(0.4, 0)),
    "int16 adj_x": dict(dtype="int16", lhs_shape=(2, 12, 5), rhs_shape=(2, 12, 6), adj_x=True,
                        lhs_quant=(1e-3, 0), rhs_quant=(1e-3, 0), out_quant=(0.01, 0)),
    "float32 both transposed": dict(dtype="float32", lhs_shape=(3, 8, 5), rhs_shape=(1, 6, 8), adj_x=True,
                                    adj_y=True),
    "float32 5-D": dict(dtype="float32", lhs_shape=(2, 1, 2, 3, 4), rhs_shape=(1, 3, 1, 4, 2)),
}


@pytest.mark.parametrize("case", MATMUL_NAMED.values(), ids=MATMUL_NAMED.keys())
def test_batch_matmul_named(case):
    check(batch_matmul_model(**case))


# -- refusals --------------------------------------------------------------------------------------------

def _refusal(model: bytes) -> str:
    with pytest.raises(CompileError) as info:
        compile_graph(run_pipeline(read_tflite(model, "test model")), "model", "test model")
    assert "\n" not in str(info.value)
    return str(info.value)


def _where_with_int8_condition() -> bytes:
    b = TFLiteBuilder()
    c = b.tensor("cond", (2, 3), "int8", scale=0.1, zero_point=0)
    x, y, z = (b.tensor(n, (2, 3), "float32") for n in "xyz")
    b.op("SELECT_V2", [c, x, y], [z])
    return b.build()


def _matmul(lhs, rhs, out, dtype="float32", **options) -> bytes:
    q = {} if dtype == "float32" else {"scale": 0.05, "zero_point": 0}
    b = TFLiteBuilder()
    names = [b.tensor("lhs", lhs, dtype, **q), b.tensor("rhs", rhs, dtype, **q)]
    b.op("BATCH_MATMUL", names, [b.tensor("out", out, dtype, **q)], **options)
    return b.build()


REFUSED = {
    "BATCH_MATMUL depths differ": (lambda: _matmul((2, 3), (4, 5), (2, 5)), "sums over 3 lhs and 4 rhs"),
    "BATCH_MATMUL of a vector": (lambda: _matmul((3,), (3, 5), (5,)), "rank 2 to 6"),
    "BATCH_MATMUL batch dims that do not broadcast": (lambda: _matmul((2, 3, 4), (3, 4, 5), (2, 3, 5)),
                                                      "do not broadcast"),
    "BATCH_MATMUL int16 with a zero point": (
        lambda: batch_matmul_model("int16", lhs_quant=(1e-3, 5), rhs_quant=(1e-3, 0), out_quant=(1e-3, 0)),
        "zero points of 0"),
    "SELECT_V2 with an int8 condition": (_where_with_int8_condition, "bool condition"),
    "SELECT x and y of different shapes": (lambda: select_model("SELECT", "int8", (2, 3), (2, 3), (3,)),
                                           "one shape"),
    "PRELU int16 with an int16 alpha": (lambda: prelu_model("int16", in_quant=(1e-3, 0), alpha_quant=(1e-3, 0),
                                                            out_quant=(1e-3, 0), alpha_dtype="int16"), "int8 alpha"),
}


@pytest.mark.parametrize("make, message", REFUSED.values(), ids=REFUSED.keys())
def test_refused_with_one_line(make, message):
    assert message in _refusal(make())
