"""Bad ONNX input through the CLI: exit 2, one `error:` line naming what and where, no partial output."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
from onnx import TensorProto, helper  # noqa: E402

from cli.test_bad_input import assert_one_line_error, run_cli  # noqa: E402


def _save(model, path):
    onnx.save(model, str(path))
    return path


def _relu_model(dims):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="act")], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_dynamic_dimension_needs_input_shape(tmp_path, capsys):
    path = _save(_relu_model(["batch", 3, 8, 8]), tmp_path / "dyn.onnx")
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "compile", path, "-o", out)
    assert_one_line_error(code, err, "input 'x'", "'batch'", "--input-shape x=")
    assert not out.exists()
    code, _, err = run_cli(capsys, "compile", path, "-o", out, "--input-shape", "x=1,3,8,8")
    assert code == 0, err
    assert (out / "dyn.c").exists()


def test_input_shape_for_an_unknown_input(tmp_path, capsys):
    path = _save(_relu_model(["batch", 3, 8, 8]), tmp_path / "dyn.onnx")
    code, _, err = run_cli(capsys, "compile", path, "-o", tmp_path / "out", "--input-shape", "image=1,3,8,8")
    assert_one_line_error(code, err, "'image'", "inputs: x")


@pytest.mark.parametrize("spec", ["x", "x=", "x=1,a", "x=0,3", "=1,2"])
def test_malformed_input_shape(tmp_path, capsys, spec):
    path = _save(_relu_model([1, 3, 8, 8]), tmp_path / "m.onnx")
    code, _, err = run_cli(capsys, "compile", path, "-o", tmp_path / "out", "--input-shape", spec)
    assert_one_line_error(code, err, "--input-shape")


@pytest.mark.parametrize("op", ["If", "Loop", "Scan"])
def test_control_flow_is_refused_naming_the_node(tmp_path, capsys, op):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    body = helper.make_graph([], "body", [], [])
    attrs = {"If": {"then_branch": body, "else_branch": body}, "Loop": {"body": body},
             "Scan": {"body": body, "num_scan_inputs": 1}}[op]
    node = helper.make_node(op, ["x"], ["y"], name="decide", **attrs)
    model = helper.make_model(helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / "flow.onnx"
    path.write_bytes(model.SerializeToString())
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "compile", path, "-o", out)
    assert_one_line_error(code, err, f"control flow ({op})", "outside Micro Relay", "node 'decide'")
    assert not out.exists()


def test_unsupported_operator_is_named(tmp_path, capsys):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="act"),
             helper.make_node("Hardmax", ["r"], ["y"], name="argmax")]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "compile", _save(model, tmp_path / "hardmax.onnx"), "-o", out)
    assert_one_line_error(code, err, "unsupported ONNX operator Hardmax", "micro-relay ops", "node 'argmax'")
    assert not out.exists()
    code, listing, _ = run_cli(capsys, "ops")
    assert code == 0 and "ONNX operators: " in listing and "Conv" in listing and "Hardmax" not in listing


@pytest.mark.parametrize("content", [b"", b"\x08\x07garbage that is not protobuf\xff\xff\xff", b"\x0a\xff\xff\xff\xff"],
                         ids=["empty", "garbage", "truncated"])
def test_corrupt_file(tmp_path, capsys, content):
    path = tmp_path / "broken.onnx"
    path.write_bytes(content)
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "compile", path, "-o", out)
    assert_one_line_error(code, err, "broken.onnx")
    assert not out.exists()
