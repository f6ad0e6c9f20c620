"""Bad input: exit status 2, one line `error: <what> (<where>)` on stderr, no traceback, no partial files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import shared_model
from micro_relay.cli import main


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code: int, err: str, *fragments: str):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_missing_file(tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "compile", tmp_path / "nope.tflite", "-o", out)
    assert_one_line_error(code, err, "model file not found", "nope.tflite")
    assert not out.exists()


def test_not_a_tflite_file(tmp_path, capsys):
    model = tmp_path / "notes.tflite"
    model.write_text("these are not the weights you are looking for\n")
    code, _, err = run_cli(capsys, "compile", model, "-o", tmp_path / "out")
    assert_one_line_error(code, err, "not a TFLite flatbuffer", "notes.tflite")
    assert not (tmp_path / "out").exists()


def test_unknown_format(tmp_path, capsys):
    model = tmp_path / "model.bin"
    model.write_bytes(b"\x00" * 64)
    code, _, err = run_cli(capsys, "inspect", model)
    assert_one_line_error(code, err, "unrecognized model format")


def test_directory_instead_of_file(tmp_path, capsys):
    code, _, err = run_cli(capsys, "inspect", tmp_path)
    assert_one_line_error(code, err, "directory")


def _model_bytes() -> bytes:
    return shared_model("mlcommons_tiny/kws_ref_model.tflite").read_bytes()


@pytest.mark.parametrize("fraction", [0.02, 0.1, 0.3, 0.5, 0.7, 0.9])
def test_truncated_model(tmp_path, capsys, fraction):
    data = _model_bytes()
    model = tmp_path / "cut.tflite"
    model.write_bytes(data[: int(len(data) * fraction)])
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "compile", model, "-o", out)
    assert_one_line_error(code, err, "cut.tflite")
    assert not out.exists()


def test_corrupted_bytes_never_crash_or_hang(tmp_path, capsys):
    """Flip random bytes (seeded) past the header: each compile ends with success or a one-line error."""
    data = bytearray(_model_bytes())
    rng = np.random.default_rng(7)
    outcomes = []
    for trial in range(25):
        corrupt = bytearray(data)
        for pos in rng.integers(8, min(len(data), 4096), size=8):
            corrupt[pos] = int(rng.integers(0, 256))
        model = tmp_path / f"corrupt{trial}.tflite"
        model.write_bytes(bytes(corrupt))
        code, _, err = run_cli(capsys, "inspect", model)
        if code != 0:
            assert_one_line_error(code, err)
        outcomes.append(code)
    assert 2 in outcomes  # the corruption is real: some of them must be refused


def test_unsupported_operator_names_op_and_tensor(tmp_path, capsys, monkeypatch):
    """A well-formed model with an operator nobody converts (HASHTABLE_LOOKUP: TFLite Micro has none either),
    written by our writer taught that one operator for this test."""
    from micro_relay.frontend.tflite import writer

    monkeypatch.setitem(writer._OPERATORS, "HASHTABLE_LOOKUP", writer._OpSpec(None, {}))
    b = writer.TFLiteBuilder()
    b.tensor("keys", (4,), "int32")
    b.tensor("values", (4,), "float32")
    b.op("HASHTABLE_LOOKUP", ["keys"], ["values"])
    model = tmp_path / "lookup.tflite"
    model.write_bytes(b.build())
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "compile", model, "-o", out)
    assert_one_line_error(code, err, "unsupported operator HASHTABLE_LOOKUP", "op 0", "tensor 'values'")
    assert not out.exists()


def test_bad_name(tmp_path, capsys):
    model = shared_model("tflite_micro/hello_world_int8.tflite")
    code, _, err = run_cli(capsys, "compile", model, "-o", tmp_path / "out", "--name", "9 lives")
    assert_one_line_error(code, err, "not a C identifier", "--name")
    assert not (tmp_path / "out").exists()


def test_real_process_exit_status_and_no_traceback(tmp_path):
    """The installed entry point, as a user runs it."""
    result = subprocess.run([sys.executable, "-m", "micro_relay", "compile", str(tmp_path / "missing.tflite"), "-o",
                             str(tmp_path / "out")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith("error: model file not found") and "Traceback" not in result.stderr
    assert result.stdout == ""
