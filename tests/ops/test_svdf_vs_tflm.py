"""SVDF against TFLite Micro over several consecutive invokes of one instance (the activation state carries
over in the compiled C, the reference Session and one TFLite Micro interpreter): float32, and int8 with int16
or int8 state. Float outputs are compared within 1e-5 of the output's scale: the sums run in TFLite Micro's
order, but the C compiler may contract a multiply-add."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.passes import run_pipeline
from support.tflite_models import log_uniform, zero_points
from support.tflite_state_models import check_invokes, svdf_model

NAMED = {
    "TFLM test shape: batch 2, 3 inputs, 4 units, rank 2, memory 10": dict(batch=2, input_size=3, units=4, rank=2,
                                                                          memory=10),
    "float KWS layer: 40 features, 64 units, memory 8, relu": dict(input_size=40, units=64, memory=8,
                                                                   activation="RELU"),
    "float relu6, 10 inputs, 8 units, memory 4": dict(input_size=10, units=8, memory=4, activation="RELU6"),
    "int8/int16 KWS layer: 40 features, 64 units, memory 8": dict(dtype="int8", input_size=40, units=64, memory=8),
    "int8/int16 rank 2, 32 units, memory 32, zero points": dict(dtype="int8", input_size=49, units=32, rank=2,
                                                               memory=32, in_zp=-7, out_zp=11),
    "int8/int8 state: 10 inputs, 16 units, memory 4": dict(dtype="int8", state_dtype="int8", input_size=10,
                                                          units=16, memory=4, in_zp=5),
    "int8 pooled vector: 1280 inputs, 8 units, memory 2": dict(dtype="int8", input_size=1280, units=8, memory=2),
    "int8 memory 1 (no shift)": dict(dtype="int8", input_size=8, units=8, memory=1),
}


@pytest.mark.parametrize("case", NAMED)
def test_named_cases_match_tflm_over_consecutive_invokes(case):
    check_invokes(svdf_model(**NAMED[case]), invokes=6)


@given(batch=st.integers(1, 3), input_size=st.integers(1, 24), units=st.integers(1, 8), rank=st.integers(1, 3),
       memory=st.integers(1, 12), activation=st.sampled_from(["NONE", "RELU", "RELU6", "RELU_N1_TO_1"]),
       seed=st.integers(0, 2 ** 16))
def test_float_matches_tflm(batch, input_size, units, rank, memory, activation, seed):
    check_invokes(svdf_model(batch, input_size, units, rank, memory, "float32", activation=activation, seed=seed),
                  invokes=4, seed=seed)


@given(batch=st.integers(1, 3), input_size=st.integers(1, 48), units=st.integers(1, 8), rank=st.integers(1, 3),
       memory=st.integers(1, 12), state_dtype=st.sampled_from(["int16", "int8"]), in_zp=zero_points("int8"),
       out_zp=zero_points("int8"), in_scale=log_uniform(1e-3, 1.0), spread=log_uniform(0.25, 4.0),
       seed=st.integers(0, 2 ** 16))
def test_int8_matches_tflm(batch, input_size, units, rank, memory, state_dtype, in_zp, out_zp, in_scale, spread,
                           seed):
    """`spread` scales the output's scale around the one that keeps typical outputs in range (both tails)."""
    model = svdf_model(batch, input_size, units, rank, memory, "int8", state_dtype, seed=seed, in_scale=in_scale,
                       in_zp=in_zp, out_zp=out_zp)
    graph = read_tflite(model)
    out_scale = graph.type_of(graph.outputs[0]).quant.scale * spread
    model = svdf_model(batch, input_size, units, rank, memory, "int8", state_dtype, seed=seed, in_scale=in_scale,
                       in_zp=in_zp, out_zp=out_zp, out_scale=out_scale)
    check_invokes(model, invokes=4, seed=seed)


def test_the_new_state_is_written_in_place_outside_the_arena():
    from micro_relay.compiler import compile_graph

    graph = run_pipeline(read_tflite(svdf_model(dtype="int8", input_size=40, units=64, memory=8)))
    assert [n.op for n in graph.nodes] == ["nn.svdf", "assign"]
    model = compile_graph(graph, "kws_svdf", "test")
    assert model.plan.state.state_bytes == 64 * 8 * 2
    assert "#define KWS_SVDF_STATE_BYTES 1024" in model.files["kws_svdf.h"]
    # the kernel writes the new state over the old one: nothing of it in the arena, no copy after it
    new_state = graph.nodes[0].outputs[1]
    assert model.lowered.graph.tensors[new_state].stored_in == graph.nodes[0].inputs[3]
    assert model.plan.arena_bytes == 40 + 64  # input and output only
    assert "dst[i] = src[i]" not in model.files["kws_svdf.c"]


def _not_variable() -> bytes:
    b = TFLiteBuilder()
    x = b.tensor("x", (1, 4), "float32")
    args = [x, b.tensor("wf", (2, 4), "float32", data=[0.5] * 8), b.tensor("wt", (2, 3), "float32", data=[1] * 6),
            b.tensor("b", (2,), "float32", data=[0, 0]), b.tensor("s", (1, 6), "float32")]
    y = b.tensor("y", (1, 2), "float32")
    b.op("SVDF", args, [y], rank=1)
    return b.inputs(x).outputs(y).build()


@pytest.mark.parametrize("model, words", [
    (_not_variable, "must be a variable tensor"),
    (lambda: _bias_scale_off(), "bias scale"),
    (lambda: svdf_model(has_bias=False), "needs its bias"),
], ids=["state not a variable tensor", "bias scale not state * weights_time", "no bias"])
def test_refused_with_one_line(model, words):
    with pytest.raises(CompileError) as err:
        from micro_relay.lower import lower

        lower(run_pipeline(read_tflite(model())))
    assert words in str(err.value) and "\n" not in str(err.value)


def _bias_scale_off() -> bytes:
    """An int8 SVDF whose bias scale is twice state_s * wt_s (TFLite Micro's Prepare refuses it too)."""
    import numpy as np

    b = TFLiteBuilder()
    x = b.tensor("x", (1, 4), "int8", scale=0.1, zero_point=0)
    args = [x, b.tensor("wf", (2, 4), "int8", data=np.ones(8), scale=0.01),
            b.tensor("wt", (2, 3), "int16", data=np.ones(6), scale=0.001),
            b.tensor("b", (2,), "int32", data=[0, 0], scale=2 * 0.001 * 0.5),
            b.tensor("s", (1, 6), "int16", variable=True, scale=0.5)]
    y = b.tensor("y", (1, 2), "int8", scale=0.1)
    b.op("SVDF", args, [y], rank=1)
    return b.inputs(x).outputs(y).build()
