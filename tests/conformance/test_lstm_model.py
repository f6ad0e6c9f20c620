"""The shared MNIST LSTM (tflite_micro/trained_lstm_int8.tflite: UNIDIRECTIONAL_SEQUENCE_LSTM over 28 rows of
28 pixels, 20 units, cell clip 10, then RESHAPE, FULLY_CONNECTED, SOFTMAX) compiles, builds with strict warnings
and gives TFLite Micro's outputs byte for byte on seeded random images; the reference interpreter agrees, and
the arena is smaller than TFLite Micro's (README: 4,208 B on a 64-bit host)."""

from __future__ import annotations

from conftest import shared_model
from support.model_check import assert_matches, compare_with_tflm
from support.tflm_oracle import tflm_arena

MODEL = "tflite_micro/trained_lstm_int8.tflite"


def test_mnist_lstm_matches_tflite_micro():
    data = shared_model(MODEL).read_bytes()
    result = compare_with_tflm(data, seeds=(0, 1, 2))
    assert_matches(result)
    assert result.arena_bytes < tflm_arena(data)["total"]
