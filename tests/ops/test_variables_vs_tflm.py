"""Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, CALL_ONCE) against TFLite Micro over
several consecutive invokes of one instance: the compiled C, the reference Session and one TFLite Micro
interpreter must agree on every invoke (the state carries over in all three)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.passes import run_pipeline
from support.tflite_models import log_uniform, zero_points
from support.tflite_state_models import accumulator, check_invokes, read_assign_read, two_variables

NAMED = {
    "float running sum, CALL_ONCE init": lambda: accumulator((1, 4), "float32", init=np.arange(4)),
    "float running sum, default init": lambda: accumulator((1, 10), "float32"),
    "int8 running sum of KWS features": lambda: accumulator((1, 49, 10, 1), "int8", init=np.full(490, 7),
                                                            scale=0.25, zero_point=-3),
    "int8 running sum, zero-point default": lambda: accumulator((1, 1, 1, 1280), "int8", scale=0.1, zero_point=5),
    "read before and after the assign": lambda: read_assign_read((1, 8)),
    "two variables assigned in one invoke": lambda: two_variables((1, 6)),
}


@pytest.mark.parametrize("case", NAMED)
def test_named_cases_match_tflm_over_consecutive_invokes(case):
    check_invokes(NAMED[case](), invokes=5)


@given(dtype=st.sampled_from(["float32", "int8"]), size=st.integers(1, 64), has_init=st.booleans(),
       scale=log_uniform(1e-3, 1.0), zero_point=zero_points("int8"), seed=st.integers(0, 2 ** 16))
def test_running_sum_matches_tflm(dtype, size, has_init, scale, zero_point, seed):
    init = np.random.default_rng(seed).integers(-100, 100, size) if has_init else None
    check_invokes(accumulator((1, size), dtype, init=init, scale=scale, zero_point=zero_point), invokes=4,
                  seed=seed)


def test_a_read_needs_no_copy_unless_an_assign_comes_before_its_reader():
    """READ_VARIABLE is a copy only where the state changes before the copy is read."""
    summed = run_pipeline(read_tflite(accumulator((1, 4), "float32", init=np.zeros(4))))
    assert [n.op for n in summed.nodes] == ["add", "assign"]
    twice = run_pipeline(read_tflite(read_assign_read((1, 8))))
    assert [n.op for n in twice.nodes] == ["reshape", "multiply", "assign", "add"]  # 'old' is copied, 'new' is not


def _init_with(op_name: str) -> bytes:
    b = TFLiteBuilder()
    sub = TFLiteBuilder()
    sub.tensor("h", (), "resource")
    sub.tensor("c", (1, 4), "float32", data=np.ones(4))
    sub.tensor("d", (1, 4), "float32")
    sub.op("VAR_HANDLE", [], ["h"], shared_name="v").op(op_name, ["c"], ["d"]).op("ASSIGN_VARIABLE", ["h", "d"], [])
    b.subgraph(sub.inputs().outputs())
    x = b.tensor("x", (1, 4), "float32")
    b.tensor("h", (), "resource")
    b.tensor("v", (1, 4), "float32")
    y = b.tensor("y", (1, 4), "float32")
    b.op("CALL_ONCE", [], [], init_subgraph_index=1)
    b.op("VAR_HANDLE", [], ["h"], shared_name="v").op("READ_VARIABLE", ["h"], ["v"]).op("ADD", ["v", "x"], ["y"])
    return b.inputs(x).outputs(y).build()


def _bad_index() -> bytes:
    b = TFLiteBuilder()
    x = b.tensor("x", (1, 4), "float32")
    y = b.tensor("y", (1, 4), "float32")
    b.op("CALL_ONCE", [], [], init_subgraph_index=7).op("RELU", [x], [y])
    return b.inputs(x).outputs(y).build()


@pytest.mark.parametrize("model, words", [
    (lambda: _init_with("RELU"), "only constant initial values are folded"),
    (_bad_index, "init subgraph index 7"),
], ids=["init subgraph computes", "init subgraph index out of range"])
def test_refused_with_one_line(model, words):
    with pytest.raises(CompileError) as err:
        run_pipeline(read_tflite(model()))
    assert words in str(err.value) and "\n" not in str(err.value)
