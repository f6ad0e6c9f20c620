"""The command-line face (`add_arguments` / `apply`), driven the way `micro-relay compile` will drive it:
parse flags, prepare the graph, apply, compile. Uses TFLite Micro's float hello_world (a sine regressor:
x[1,1] ─ dense 16 relu ─ dense 16 relu ─ dense 1) and refuses its int8 twin."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from conftest import shared_model
from micro_relay.compiler import prepare_graph
from micro_relay.errors import CompileError
from micro_relay.ir.types import DType
from micro_relay.quantize.cli_options import add_arguments, apply

from .support import assert_c_matches_reference


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args([str(a) for a in argv])


@pytest.fixture(scope="module")
def hello_world():
    return prepare_graph(shared_model("tflite_micro/hello_world_float.tflite"))


def calibration_file(tmp_path, count=64):
    x = np.linspace(0, 2 * np.pi, count, dtype=np.float32).reshape(count, 1, 1)
    np.save(tmp_path / "cal.npy", x)
    return tmp_path / "cal.npy"


def test_without_quantize_the_graph_is_unchanged(hello_world):
    assert apply(hello_world, parse()) is hello_world


def test_quantize_compiles_to_int8_c_that_still_computes_sine(hello_world, tmp_path, capsys):
    args = parse("--quantize", "int8", "--calibration", calibration_file(tmp_path), "--calibration-method", "mse")
    q = apply(hello_world, args)
    report = capsys.readouterr().err
    assert "mse calibration on 64 samples" in report and "SQNR" in report
    assert q.type_of(q.inputs[0]).dtype == DType.FLOAT32
    assert [n.op for n in q.nodes] == ["qnn.quantize", "nn.dense", "nn.dense", "nn.dense", "qnn.dequantize"]
    x = np.linspace(0.1, 6.2, 25, dtype=np.float32)
    compiled = assert_c_matches_reference(q, [[np.array([[v]], np.float32)] for v in x], tmp_path / "c")
    y = np.array([outs[0].item() for outs in compiled])
    assert np.abs(y - np.sin(x)).max() < 0.25  # the float model itself is within ~0.1 of sin


def test_int8_io_and_per_tensor_weights(hello_world, tmp_path):
    q = apply(hello_world, parse("--quantize", "int8", "--calibration", calibration_file(tmp_path), "--int8-io",
                                 "--per-tensor-weights"), log=lambda text: None)
    assert q.type_of(q.inputs[0]).dtype == DType.INT8 and q.type_of(q.outputs[0]).dtype == DType.INT8
    assert all(not q.type_of(n.inputs[1]).quant.per_channel for n in q.nodes if n.op == "nn.dense")


def test_flag_errors(hello_world, tmp_path):
    with pytest.raises(CompileError, match="needs calibration samples: --calibration"):
        apply(hello_world, parse("--quantize", "int8"))
    with pytest.raises(CompileError, match="--calibration needs --quantize int8"):
        apply(hello_world, parse("--calibration", calibration_file(tmp_path)))
    with pytest.raises(CompileError, match="--keep-float needs --quantize int8"):
        apply(hello_world, parse("--keep-float", "nn.dense"))
    with pytest.raises(SystemExit):
        parse("--quantize", "int4")


def test_already_int8_model_is_refused(tmp_path):
    graph = prepare_graph(shared_model("tflite_micro/hello_world_int8.tflite"))
    with pytest.raises(CompileError) as info:
        apply(graph, parse("--quantize", "int8", "--calibration", calibration_file(tmp_path)))
    assert "model is already quantized" in str(info.value) and "\n" not in str(info.value)
