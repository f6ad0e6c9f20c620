"""The commands as a user runs them, on the project's own sine model: compile's output folder, default
name, plan report; inspect's text IR; run's reference outputs; progress on stderr, results on stdout."""

from __future__ import annotations

import json

import numpy as np
import pytest

from micro_relay.cli import main
from micro_relay.examples.sine_model import build_sine_model
from micro_relay.ir.text import parse_graph
from support.tflm_oracle import tflm_run


@pytest.fixture()
def sine(tmp_path):
    path = tmp_path / "my-sine model.tflite"
    path.write_bytes(build_sine_model())
    return path


def test_compile_writes_a_self_contained_folder_with_default_name(tmp_path, sine, capsys):
    out = tmp_path / "out"
    assert main(["compile", str(sine), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "arena" in captured.err
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert "my_sine_model.h" in names and "my_sine_model.c" in names and "my_sine_model.plan.json" in names
    assert "mr_dense.c" in names and "micro_relay/crt.h" in names
    header = (out / "my_sine_model.h").read_text()
    for macro in ("MY_SINE_MODEL_ARENA_SIZE", "MY_SINE_MODEL_NUM_INPUTS 1", "MY_SINE_MODEL_INPUT0_SCALE",
                  "MY_SINE_MODEL_OUTPUT0_ZERO_POINT", "MY_SINE_MODEL_INPUT0_SHAPE {1, 1}", "int my_sine_model_invoke(void);"):
        assert macro in header


def test_plan_report_lists_every_tensor_and_the_lower_bound(tmp_path, sine):
    out = tmp_path / "out"
    assert main(["compile", str(sine), "-o", str(out), "--name", "sine"]) == 0
    report = json.loads((out / "sine.plan.json").read_text())
    assert f"#define SINE_ARENA_SIZE {report['arena_bytes']}" in (out / "sine.h").read_text()
    assert report["lower_bound_bytes"] <= report["arena_bytes"]
    names = {t["name"] for t in report["tensors"]}
    assert {"x", "y", "dense0/out", "dense1/out"} <= names
    for t in report["tensors"]:
        assert t["offset"] + t["bytes"] <= report["arena_bytes"]
        assert t["first_use"] <= t["last_use"]
    assert report["macs"] == 1 * 16 + 16 * 16 + 16 * 1


def test_inspect_prints_parseable_text_with_full(sine, capsys):
    assert main(["inspect", str(sine), "--full"]) == 0
    graph = parse_graph(capsys.readouterr().out)
    assert [n.op for n in graph.nodes] == ["nn.dense"] * 3


def test_run_matches_tflite_micro(tmp_path, sine, capsys):
    x = np.array([[37]], dtype=np.int8)
    np.save(tmp_path / "x.npy", x)
    assert main(["run", str(sine), "--input", str(tmp_path / "x.npy"), "--output", str(tmp_path / "y.npy")]) == 0
    expected = tflm_run(sine.read_bytes(), [x])[0]
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), expected)


def test_run_with_wrong_input_size_is_a_one_line_error(tmp_path, sine, capsys):
    np.save(tmp_path / "x.npy", np.zeros((3, 3), np.int8))
    assert main(["run", str(sine), "--input", str(tmp_path / "x.npy")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: input has 9 elements, expected 1") and "\n" not in err


def test_recompiling_unchanged_model_keeps_files_untouched(tmp_path, sine):
    out = tmp_path / "out"
    assert main(["compile", str(sine), "-o", str(out), "--name", "sine"]) == 0
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert main(["compile", str(sine), "-o", str(out), "--name", "sine"]) == 0
    assert stamps == {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
