"""UNIDIRECTIONAL_SEQUENCE_LSTM against TFLite Micro: int8 (8x8 -> int16 gates and cell), int16x8 and float32.

Compiled C, the reference interpreter and TFLite Micro run consecutive invokes of one model instance on
seeded random inputs, so the hidden and cell states carry over from one invoke to the next as TFLite Micro's
variables do (they start from zeros, int8 ones from their zero point); integer outputs must be identical, float ones within 1e-5 of the output's
largest magnitude (libm's expf/tanhf are the only difference, and the host's agree). The named cases have
the shapes of real recurrent models: keyword spotting over 49 frames of 10 features, MNIST rows (28 x 28),
units 16..128, batches and time-major layouts; hypothesis draws shapes, scales and zero points. Variants
TFLite Micro's kernel does not run are refused with a one-line CompileError.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from micro_relay.compiler import compile_graph, write_output
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.passes import run_pipeline
from support.c_harness import build_host_program, run_host_program
from support.model_check import random_inputs
from support.tflite_lstm_models import check_invokes, lstm_model
from support.tflm_oracle import tflm_invokes
from support.tflite_models import SEEDS, log_uniform, zero_points

NAMED = {
    "mnist_rows_int8_t28_i28_u20": dict(time=28, input_size=28, units=20, cell_clip=10.0, in_scale=1 / 255,
                                        in_zp=-128, h_scale=0.0078, h_zp=0),
    "kws_int8_t49_i10_u16": dict(time=49, input_size=10, units=16),
    "kws_int8_t49_i10_u64_zero_points": dict(time=49, input_size=10, units=64, in_zp=17, h_zp=-9),
    "kws_int8_t49_i10_u128": dict(time=49, input_size=10, units=128, seed=3),
    "int8_batch2": dict(batch=2, time=6, input_size=8, units=12),
    "int8_time_major_batch3": dict(batch=3, time=5, input_size=4, units=8, time_major=True),
    "int8_cell_scale_2^-11": dict(time=10, input_size=6, units=10, cell_power=-11),
    "int8_cell_scale_2^-14": dict(time=10, input_size=6, units=10, cell_power=-14),
    "int8_cell_scale_not_a_power_of_two": dict(time=10, input_size=6, units=10, cell_scale=3.1e-4),
    "int8_saturating_gates": dict(time=12, input_size=10, units=16, spread=12.0),
    "int8_tight_cell_clip": dict(time=12, input_size=10, units=16, cell_clip=0.5),
    "int8_one_unit_one_step": dict(time=1, input_size=1, units=1),
    "int16_t49_i10_u32": dict(dtype="int16", time=49, input_size=10, units=32, in_scale=2 ** -12,
                              h_scale=2 ** -15),
    "int16_time_major_batch2_clip": dict(dtype="int16", batch=2, time=8, input_size=5, units=9, time_major=True,
                                         cell_clip=3.0, in_scale=1e-3, h_scale=3e-5),
    "float_t49_i10_u32": dict(dtype="float32", time=49, input_size=10, units=32),
    "float_time_major_batch2_clip": dict(dtype="float32", batch=2, time=7, input_size=6, units=11,
                                         time_major=True, cell_clip=0.8),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_lstm_matches_tflm(name):
    case = NAMED[name]
    check_invokes(lstm_model(**case), invokes=3, float_scale=2.0)


@st.composite
def lstm_cases(draw) -> dict:
    dtype = draw(st.sampled_from(["int8", "int16", "float32"]))
    case = dict(dtype=dtype, batch=draw(st.integers(1, 3)), time=draw(st.integers(1, 8)),
                input_size=draw(st.integers(1, 12)), units=draw(st.integers(1, 24)),
                time_major=draw(st.booleans()), seed=draw(SEEDS),
                cell_clip=draw(st.sampled_from([0.0, 0.0, 0.3, 2.0, 9.0])))
    if dtype != "float32":
        hidden_range = (1e-3, 0.05) if dtype == "int8" else (1e-5, 3e-4)
        case.update(in_scale=draw(log_uniform(1e-3, 0.1) if dtype == "int8" else log_uniform(1e-5, 1e-3)),
                    in_zp=draw(zero_points(dtype)), h_scale=draw(log_uniform(*hidden_range)),
                    h_zp=draw(zero_points(dtype)), cell_power=draw(st.integers(-15, -9)),
                    spread=draw(log_uniform(0.3, 10.0)))
    return case


@given(case=lstm_cases())
def test_lstm_matches_tflm(case):
    check_invokes(lstm_model(**case), invokes=2, float_scale=2.0, seed=case["seed"] % 1000)


def _compile(model: bytes):
    return compile_graph(run_pipeline(read_tflite(model, "test model")), "m", "test model")


@pytest.mark.parametrize("variant, message", [
    ("peephole", "peephole"), ("projection", "projection"), ("layer_norm", "layer normalization"),
    ("cifg", "CIFG"), ("per_channel", "per-channel weights")])
def test_variants_tflite_micro_does_not_run_are_refused(variant, message):
    with pytest.raises(CompileError, match=message) as info:
        _compile(lstm_model(variant=variant, units=4))
    assert "\n" not in str(info.value)


def test_cell_activation_other_than_tanh_is_refused():
    with pytest.raises(CompileError, match="cell activation"):
        _compile(lstm_model(activation="RELU"))


def test_states_carry_over_between_invokes():
    """The same input twice: TFLite Micro's second output differs (its variables kept the first invoke's
    states), and ours follow it on both."""
    model = lstm_model(time=3, input_size=4, units=6, h_zp=3, in_zp=-7)
    x = np.random.default_rng(5).integers(-128, 128, (1, 3, 4)).astype(np.int8)
    result = check_invokes(model, samples=[[x], [x]])
    assert not np.array_equal(result.tflm[0][0], result.tflm[1][0])


@pytest.mark.parametrize("case, message", [
    (dict(cell_scale=16.0), "int16 tanh"),
    (dict(cell_clip=float("nan")), "cell clip"),
    (dict(state_shape=(2, 5)), "holds 10 values, expected 1 x 5"),
    (dict(state_shape=(5,)), "must be 2-D"),
    (dict(cell_dtype="int8"), "int16 cell state"),
    (dict(dtype="float32", cell_dtype="int16"), "float32 weights, biases and cell state"),
])
def test_parameters_the_kernel_cannot_take_are_refused(case, message):
    with pytest.raises(CompileError, match=message) as info:
        _compile(lstm_model(**case))
    assert "\n" not in str(info.value)


SANITIZE = ("-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=all")


@pytest.mark.parametrize("case", [
    dict(time=8, input_size=5, units=9, spread=20.0, in_zp=50, h_zp=-60, cell_clip=0.2, batch=2, time_major=True),
    dict(dtype="int16", time=8, input_size=5, units=9, spread=20.0, cell_power=-10, in_scale=1e-4, h_scale=3e-5)],
    ids=["int8_saturating", "int16_saturating"])
def test_kernel_is_clean_under_sanitizers(case, tmp_path, monkeypatch):
    """Saturating gates, clipping and large zero points under AddressSanitizer and UBSan: no finding, and
    TFLite Micro's outputs over three invokes."""
    monkeypatch.setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0")
    model = lstm_model(**case)
    graph = run_pipeline(read_tflite(model, "test model"))
    rng = np.random.default_rng(0)
    samples = [random_inputs(graph, rng) for _ in range(3)]
    write_output(compile_graph(graph, "m", "test model"), tmp_path)
    exe = build_host_program(tmp_path, "m", extra_flags=SANITIZE)
    got = run_host_program(exe, samples, [(graph.type_of(n).dtype.numpy, graph.type_of(n).shape)
                                          for n in graph.outputs])
    for ours, theirs in zip(got, tflm_invokes(model, samples, 1)):
        np.testing.assert_array_equal(ours[0], np.asarray(theirs[0]).reshape(ours[0].shape))
