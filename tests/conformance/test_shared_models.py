"""Every shared reference model (except the LSTM one) compiles, builds with strict warnings, and gives
outputs identical to TFLite Micro byte for byte (float models within 1e-5 relative) on 3 seeded inputs;
the reference interpreter agrees too, and the arena never exceeds TFLite Micro's."""

from __future__ import annotations

import pytest

from conftest import SHARED_MODELS
from support.model_check import assert_matches, compare_with_tflm
from support.tflm_oracle import tflm_arena

MODELS = [
    "tflite_micro/hello_world_int8.tflite",
    "tflite_micro/hello_world_float.tflite",
    "tflite_micro/micro_speech_quantized.tflite",
    "tflite_micro/person_detect.tflite",
    "tflite_micro/simple_add_model.tflite",
    "mlcommons_tiny/kws_ref_model.tflite",
    "mlcommons_tiny/pretrainedResnet_quant.tflite",
    "mlcommons_tiny/pretrainedResnet.tflite",
    "mlcommons_tiny/ad01_int8.tflite",
]


@pytest.mark.parametrize("relative", MODELS, ids=[m.split("/")[1].removesuffix(".tflite") for m in MODELS])
def test_shared_model_matches_tflite_micro(relative):
    path = SHARED_MODELS / relative
    if not path.is_file():
        pytest.skip(f"reference model {relative} is absent from {SHARED_MODELS}")
    data = path.read_bytes()
    result = compare_with_tflm(data, seeds=(0, 1, 2))
    assert_matches(result, float_rtol=1e-5)
    assert result.arena_bytes <= tflm_arena(data)["total"]
