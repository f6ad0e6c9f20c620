"""The demo and the project's own sine model: what `make demo` shows is real."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

from micro_relay.demo import main as demo_main
from micro_relay.examples.sine_model import build_sine_model
from support.model_check import assert_matches, compare_with_tflm


def test_sine_model_is_deterministic():
    assert build_sine_model() == build_sine_model()


def test_sine_model_matches_tflite_micro_on_its_whole_input_range():
    data = build_sine_model()
    samples = [[np.array([[v]], dtype=np.int8)] for v in range(-128, 128)]
    assert_matches(compare_with_tflm(data, samples=samples))


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no host C compiler")
def test_demo_prints_outputs_close_to_sine_and_the_plan(tmp_path, capsys):
    assert demo_main(["--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    rows = [tuple(map(float, m)) for m in re.findall(r"^\s+(-?\d+\.\d+)\s+(-?\d+\.\d+)\s+(-?\d+\.\d+)$", text, re.M)]
    assert len(rows) == 9
    for x, true, model in rows:
        assert abs(true - np.sin(x)) < 1e-3
        assert abs(model - true) < 0.1, (x, true, model)
    assert re.search(r"memory plan: arena \d+ B", text)
