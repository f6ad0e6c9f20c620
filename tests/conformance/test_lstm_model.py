"""The shared MNIST LSTM (tflite_micro/trained_lstm_int8.tflite: UNIDIRECTIONAL_SEQUENCE_LSTM over 28 rows of
28 pixels, 20 units, cell clip 10, then RESHAPE, FULLY_CONNECTED, SOFTMAX) compiles, builds with strict warnings
and gives TFLite Micro's outputs byte for byte over consecutive invokes on seeded random images (the LSTM's
states carry over in both); the reference interpreter agrees. Its arena plus state storage is smaller than
TFLite Micro's arena (README: 4,208 B on a 64-bit host), and it runs on an emulated Cortex-M4."""

from __future__ import annotations

from conftest import shared_model
from micro_relay.compiler import compile_graph
from micro_relay.frontend.tflite import read_tflite
from micro_relay.passes import run_pipeline
from support.tflite_lstm_models import check_invokes
from support.tflm_oracle import tflm_arena

MODEL = "tflite_micro/trained_lstm_int8.tflite"


def test_mnist_lstm_matches_tflite_micro_over_invokes():
    data = shared_model(MODEL).read_bytes()
    check_invokes(data, invokes=4)
    plan = compile_graph(run_pipeline(read_tflite(data, MODEL)), "mnist_lstm", MODEL).plan
    assert plan.arena_bytes + plan.state.state_bytes < tflm_arena(data)["total"]


def test_mnist_lstm_on_cortex_m4_over_invokes(arm_tools):
    """Built for an emulated Cortex-M4, three consecutive invokes give the reference interpreter's outputs for
    three consecutive invokes (the state carried over on the device as on the host)."""
    from micro_relay.bench.measure import bench_model

    result = bench_model(shared_model(MODEL), runs=3)
    assert result["outputs_match"] is True and result["max_abs_diff"] == 0
    assert result["arena_bytes"] + 60 <= result["model_ram_bytes"]  # the 60 B of h and c states besides the arena
