"""Every shared reference model (except the LSTM one) compiles, builds with strict warnings, and gives
outputs identical to TFLite Micro byte for byte (float models within 1e-5 relative) on 3 seeded inputs;
the reference interpreter agrees too, and the arena never exceeds TFLite Micro's."""

from __future__ import annotations

import pytest

from conftest import shared_model
from support.model_check import assert_matches, compare_with_tflm
from support.shared_models import CONFORMANCE_MODELS, model_id
from support.tflm_oracle import tflm_arena



@pytest.mark.parametrize("relative", CONFORMANCE_MODELS, ids=[model_id(m) for m in CONFORMANCE_MODELS])
def test_shared_model_matches_tflite_micro(relative):
    data = shared_model(relative).read_bytes()
    result = compare_with_tflm(data, seeds=(0, 1, 2))
    assert_matches(result, float_rtol=1e-5)
    assert result.arena_bytes <= tflm_arena(data)["total"]
