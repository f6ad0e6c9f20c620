"""Hostile ONNX models, one class per test, built with onnx.helper: each ends with exit status 2, exactly one
line `error: <what> (<where>)` on stderr (checked at the file-descriptor level, so tvm's C++ log lines count),
nothing on stdout and no output folder."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from micro_relay.cli import main  # noqa: E402
from micro_relay.frontend import load_model  # noqa: E402
from micro_relay.frontend.relax import onnx_constants  # noqa: E402
from micro_relay.frontend.relax.onnx_checks import IR_VERSIONS, OPSETS  # noqa: E402


def _vi(name, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def _model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _relu(opset=17, dims=(1, 4), name="x"):
    return _model([helper.make_node("Relu", [name], ["y"], name="act")], [_vi(name, list(dims))],
                  [_vi("y", list(dims))], opset=opset)


def _add(weight):
    """y = x + w, with the initializer under test as w."""
    return _model([helper.make_node("Add", ["x", "w"], ["y"], name="plus")], [_vi("x", [1, 4])], [_vi("y", [1, 4])],
                  [weight])


def _compile(tmp_path, capfd, model, *extra, name="m.onnx"):
    path = tmp_path / name
    path.write_bytes(model if isinstance(model, bytes) else model.SerializeToString())
    out = tmp_path / "out"
    code = main(["compile", str(path), "-o", str(out), *map(str, extra)])
    captured = capfd.readouterr()
    return code, captured.out, captured.err, out


def _refused(tmp_path, capfd, model, *extra, name="m.onnx") -> str:
    """The one error line (asserting exit 2, nothing else on stdout or stderr, no output folder)."""
    code, out_text, err, out = _compile(tmp_path, capfd, model, *extra, name=name)
    assert code == 2, err
    assert out_text == "", out_text
    assert err.endswith("\n") and err.count("\n") == 1 and err.startswith("error: "), err
    assert not out.exists()
    return err[:-1]


# -- tensor data -------------------------------------------------------------------------------------------

def test_initializer_dims_that_do_not_match_the_data(tmp_path, capfd):
    weight = helper.make_tensor("w", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])
    weight.dims[:] = [1, 5]
    assert _refused(tmp_path, capfd, _add(weight)) == \
        "error: initializer 'w' has dims [1, 5] (5 elements) but 4 values in float_data (m.onnx: initializer 'w')"


def test_short_raw_data(tmp_path, capfd):
    weight = numpy_helper.from_array(np.ones((1, 4), np.float32), "w")
    weight.raw_data = weight.raw_data[:10]
    assert _refused(tmp_path, capfd, _add(weight)) == \
        "error: initializer 'w' has dims [1, 4] (16 bytes of FLOAT) but 10 bytes of raw_data (m.onnx: initializer 'w')"


def test_unknown_data_type(tmp_path, capfd):
    weight = helper.make_tensor("w", TensorProto.FLOAT, [1, 4], [1.0] * 4)
    weight.data_type = 99
    assert _refused(tmp_path, capfd, _add(weight)) == \
        "error: initializer 'w' has unknown data type 99 (m.onnx: initializer 'w')"


def test_string_tensor(tmp_path, capfd):
    weight = helper.make_tensor("w", TensorProto.STRING, [1, 4], [b"a", b"b", b"c", b"d"])
    assert _refused(tmp_path, capfd, _add(weight)) == \
        "error: initializer 'w' holds STRING data; Micro Relay takes numeric tensors only (m.onnx: initializer 'w')"


def test_external_data_is_refused_naming_the_file(tmp_path, capfd):
    (tmp_path / "weights.bin").write_bytes(np.ones(4, np.float32).tobytes())  # present, and still not read
    weight = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1, 4])
    weight.data_location = TensorProto.EXTERNAL
    entry = weight.external_data.add()
    entry.key, entry.value = "location", "weights.bin"
    assert _refused(tmp_path, capfd, _add(weight)) == \
        ("error: initializer 'w' keeps its data in the external file 'weights.bin'; the model must be "
         "self-contained (save it with onnx.save_model(..., save_as_external_data=False)) (m.onnx: initializer 'w')")


def test_constant_node_value_is_checked_like_an_initializer(tmp_path, capfd):
    value = numpy_helper.from_array(np.ones((1, 4), np.float32), "c")
    value.raw_data = value.raw_data[:3]
    nodes = [helper.make_node("Constant", [], ["c"], name="const", value=value),
             helper.make_node("Add", ["x", "c"], ["y"], name="plus")]
    model = _model(nodes, [_vi("x", [1, 4])], [_vi("y", [1, 4])])
    assert _refused(tmp_path, capfd, model) == \
        ("error: attribute 'value' has dims [1, 4] (16 bytes of FLOAT) but 3 bytes of raw_data "
         "(m.onnx: node 'const' (Constant))")


# -- graph wiring ------------------------------------------------------------------------------------------

def test_two_nodes_writing_one_tensor(tmp_path, capfd):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="a"), helper.make_node("Sigmoid", ["x"], ["y"], name="b")]
    model = _model(nodes, [_vi("x", [1, 4])], [_vi("y", [1, 4])])
    assert _refused(tmp_path, capfd, model) == \
        "error: tensor 'y' is written by this node and by node 'a' (Relu) (m.onnx: node 'b' (Sigmoid))"


def test_node_writing_a_graph_input(tmp_path, capfd):
    nodes = [helper.make_node("Relu", ["x"], ["x"], name="a"), helper.make_node("Relu", ["x"], ["y"], name="b")]
    model = _model(nodes, [_vi("x", [1, 4])], [_vi("y", [1, 4])])
    assert _refused(tmp_path, capfd, model) == \
        "error: tensor 'x' is written by this node and by the graph input (m.onnx: node 'a' (Relu))"


def test_node_input_that_no_one_produces(tmp_path, capfd):
    model = _model([helper.make_node("Add", ["x", "ghost"], ["y"], name="plus")], [_vi("x", [1, 4])],
                   [_vi("y", [1, 4])])
    assert _refused(tmp_path, capfd, model) == \
        ("error: input 'ghost' of this node is not produced by any node, graph input or initializer "
         "(m.onnx: node 'plus' (Add))")


def test_nodes_out_of_topological_order(tmp_path, capfd):
    nodes = [helper.make_node("Sigmoid", ["r"], ["y"], name="second"),
             helper.make_node("Relu", ["x"], ["r"], name="first")]
    model = _model(nodes, [_vi("x", [1, 4])], [_vi("y", [1, 4])])
    assert _refused(tmp_path, capfd, model) == \
        ("error: input 'r' of this node is produced later, by node 'first' (Relu): nodes must be in topological "
         "order (m.onnx: node 'second' (Sigmoid))")


def test_graph_output_that_does_not_exist(tmp_path, capfd):
    model = _model([helper.make_node("Relu", ["x"], ["y"], name="act")], [_vi("x", [1, 4])], [_vi("nowhere", [1, 4])])
    assert _refused(tmp_path, capfd, model) == \
        ("error: graph output 'nowhere' is not produced by any node, graph input or initializer "
         "(m.onnx: output 'nowhere')")


def test_graph_input_declared_twice(tmp_path, capfd):
    model = _model([helper.make_node("Relu", ["x"], ["y"], name="act")], [_vi("x", [1, 4]), _vi("x", [1, 4])],
                   [_vi("y", [1, 4])])
    assert _refused(tmp_path, capfd, model) == "error: graph input 'x' is declared twice (m.onnx: input 'x')"


def test_graph_input_without_a_type(tmp_path, capfd):
    model = _relu()
    model.graph.input[0].ClearField("type")
    assert _refused(tmp_path, capfd, model) == "error: graph input 'x' has no tensor type (m.onnx: input 'x')"


# -- versions ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("opset", [OPSETS[0] - 1, OPSETS[1] + 1, 2**31 - 1])
def test_opset_outside_the_supported_range(tmp_path, capfd, opset):
    assert _refused(tmp_path, capfd, _relu(opset=opset)) == \
        (f"error: the model imports opset {opset} of the default ONNX operator set; supported: opset {OPSETS[0]} "
         f"to {OPSETS[1]} (m.onnx)")


def test_model_without_a_default_opset(tmp_path, capfd):
    model = _relu()
    del model.opset_import[:]
    assert _refused(tmp_path, capfd, model) == \
        (f"error: the model imports no version of the default ONNX operator set (opset_import for domain ''); "
         f"supported: opset {OPSETS[0]} to {OPSETS[1]} (m.onnx)")


def test_supported_opsets_are_the_ones_onnxruntime_runs():
    """The range's ends come from the oracle: onnxruntime runs a Relu at both ends and refuses it just outside."""
    ort = pytest.importorskip("onnxruntime")
    options = ort.SessionOptions()
    options.log_severity_level = 4

    def runs(opset):
        try:
            ort.InferenceSession(_relu(opset=opset).SerializeToString(), options, providers=["CPUExecutionProvider"])
        except Exception:
            return False
        return True

    assert [runs(v) for v in (OPSETS[0] - 1, OPSETS[0], OPSETS[1], OPSETS[1] + 1)] == [False, True, True, False]
    assert IR_VERSIONS[1] == onnx.IR_VERSION  # the checker's own limit


@pytest.mark.parametrize("ir_version", [IR_VERSIONS[0] - 1, IR_VERSIONS[1] + 1])
def test_ir_version_outside_the_supported_range(tmp_path, capfd, ir_version):
    model = _relu()
    model.ir_version = ir_version
    assert _refused(tmp_path, capfd, model) == \
        (f"error: ONNX IR version {ir_version} is outside the supported range {IR_VERSIONS[0]} to "
         f"{IR_VERSIONS[1]} (m.onnx)")


def test_opset_6_axis_broadcasting_is_refused(tmp_path, capfd):
    """Add-6 with broadcast=1, axis=1 lines [3] up with axis 1; numpy broadcasting (what tvm does) with axis 3."""
    node = helper.make_node("Add", ["x", "b"], ["y"], name="bias", broadcast=1, axis=1)
    model = _model([node], [_vi("x", [1, 3, 3, 3]), _vi("b", [3])], [_vi("y", [1, 3, 3, 3])],
                   [numpy_helper.from_array(np.arange(3, dtype=np.float32), "b")], opset=6)
    model.ir_version = 3  # as the exporters of that time wrote it: initializers are also graph inputs
    assert _refused(tmp_path, capfd, model) == \
        ("error: opset-6 broadcasting along axis 1 differs from numpy broadcasting, which the importer applies; "
         "re-export at opset 7 or later (m.onnx: node 'bias' (Add))")


# -- names -------------------------------------------------------------------------------------------------

def test_names_that_are_not_utf8(tmp_path, capfd):
    data = _relu(name="XX").SerializeToString().replace(b"XX", b"\xff\xfe")
    assert _refused(tmp_path, capfd, data) == "error: a name is not valid UTF-8: '\\xff\\xfe' (m.onnx: input 0)"


def test_newlines_and_comment_delimiters_in_names_are_escaped(tmp_path, capfd):
    model = _model([helper.make_node("Det", ["x"], ["y"], name="det\n*/ /*")], [_vi("x", [4, 4])], [_vi("y", [])])
    assert _refused(tmp_path, capfd, model) == \
        ("error: unsupported ONNX operator Det (unsupported here: Det; `micro-relay ops` lists the supported ones) "
         "(m.onnx: node 'det\\n*\\/ /\\*' (Det))")


def test_input_shape_naming_an_escaped_input(tmp_path, capfd):
    model = _relu(dims=["n", 4], name="in\nput")
    assert _refused(tmp_path, capfd, model, "--input-shape", "image=1,4") == \
        "error: --input-shape names 'image', which is not an input (inputs: in\\nput) (m.onnx)"


# -- sizes: refused from the declared shapes, before anything allocates ------------------------------------

@pytest.mark.parametrize("dims, message", [
    ([1, 2**31 - 1], "graph input 'x' has shape [1, 2147483647]: 8589934588 bytes, more than a 32-bit target "
                     "addresses in one tensor (2147483647)"),
    ([1, 2**40], "graph input 'x' has dimension 1099511627776 at axis 1, beyond what int32 holds (2147483647)"),
], ids=["2^31-1", "2^40"])
def test_huge_declared_dimension(tmp_path, capfd, dims, message):
    assert _refused(tmp_path, capfd, _relu(dims=dims)) == f"error: {message} (m.onnx: input 'x')"


def test_huge_convolution_is_refused_before_anything_allocates(tmp_path, capfd):
    weight = numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")
    model = _model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], [_vi("x", [1, 1, 2**31 - 1, 4])],
                   [_vi("y", [1, 1, 2**31 - 3, 2])], [weight])
    assert _refused(tmp_path, capfd, model) == \
        ("error: graph input 'x' has shape [1, 1, 2147483647, 4]: 34359738352 bytes, more than a 32-bit target "
         "addresses in one tensor (2147483647) (m.onnx: input 'x')")


def test_huge_intermediate_tensor_names_its_node(tmp_path, capfd):
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["big"], name="fill",
                              value=numpy_helper.from_array(np.ones(1, np.float32))),
             helper.make_node("Add", ["x", "big"], ["y"], name="plus")]
    model = _model(nodes, [_vi("x", [1, 4])], [_vi("y", [1, 4])],
                   [numpy_helper.from_array(np.array([65536, 65536], np.int64), "shape")])
    assert _refused(tmp_path, capfd, model) == \
        ("error: tensor 'big' has shape [65536, 65536]: 17179869184 bytes, more than a 32-bit target addresses in "
         "one tensor (2147483647) (m.onnx: node 'fill' (ConstantOfShape))")


def test_constant_folding_never_evaluates_a_node_with_a_huge_result(monkeypatch):
    import onnx.reference

    evaluated = []
    real = onnx.reference.ReferenceEvaluator

    def spy(node, *args, **kwargs):
        evaluated.append(node.op_type)
        return real(node, *args, **kwargs)

    monkeypatch.setattr(onnx.reference, "ReferenceEvaluator", spy)
    nodes = [helper.make_node("Constant", [], ["shape"], name="c",
                              value=numpy_helper.from_array(np.array([65536, 65536], np.int64))),
             helper.make_node("ConstantOfShape", ["shape"], ["big"], name="fill",
                              value=numpy_helper.from_array(np.ones(1, np.float32))),
             helper.make_node("Add", ["x", "big"], ["y"], name="plus")]
    model = _model(nodes, [_vi("x", [1, 4])], [_vi("y", [65536, 65536])])
    folded = onnx_constants.fold_onnx_constants(model, {"x": [1, 4]})
    assert evaluated == ["Constant"]  # the shape is folded; the 2^32-element fill is not computed
    assert [n.op_type for n in folded.graph.node] == ["ConstantOfShape", "Add"]


def test_input_shape_beyond_a_32_bit_target(tmp_path, capfd):
    assert _refused(tmp_path, capfd, _relu(dims=["n", 4]), "--input-shape", "x=1048576,1024") == \
        ("error: --input-shape for input 'x' has shape [1048576, 1024]: 4294967296 bytes, more "
         "than a 32-bit target addresses in one tensor (2147483647) (--input-shape)")


def test_zero_dimension(tmp_path, capfd):
    assert _refused(tmp_path, capfd, _relu(dims=[1, 0])) == \
        "error: input 'x' has dimension 0 at axis 1; dimensions must be positive (m.onnx)"


# -- the importer and the checker --------------------------------------------------------------------------

def _qdq(scale, zero_point, zp_type=np.int8):
    inits = [numpy_helper.from_array(np.array(scale, np.float32), "s"),
             numpy_helper.from_array(np.array(zero_point, zp_type), "z")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="quant"),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"], name="dequant"),
             helper.make_node("Relu", ["d"], ["y"], name="act")]
    return _model(nodes, [_vi("x", [1, 4])], [_vi("y", [1, 4])], inits)


def test_importer_exception_names_the_node_and_its_log_lines_stay_hidden(tmp_path, capfd):
    """tvm's importer raises a TypeError on an int32 zero point, prints to stdout and, as its BlockBuilder
    dies, logs a C++ warning on fd 2: the user sees the one line only."""
    assert _refused(tmp_path, capfd, _qdq(0.5, 0, np.int32)) == \
        ("error: apache-tvm's ONNX importer failed: TypeError: Unsupported output datatype attribute for operation: "
         "'int32 (m.onnx: node 'quant' (QuantizeLinear))")


def test_importer_failure_in_a_real_process_is_one_line(tmp_path):
    """As a user runs it: nothing tvm logs while the interpreter exits reaches stderr either."""
    import os
    import subprocess
    import sys

    path = tmp_path / "m.onnx"
    path.write_bytes(_qdq(0.5, 0, np.int32).SerializeToString())
    env = {k: v for k, v in os.environ.items() if k != "MICRO_RELAY_DEBUG"}
    result = subprocess.run([sys.executable, "-m", "micro_relay", "compile", str(path), "-o", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == ("error: apache-tvm's ONNX importer failed: TypeError: Unsupported output datatype "
                             "attribute for operation: 'int32 (m.onnx: node 'quant' (QuantizeLinear))\n")
    assert not (tmp_path / "out").exists()


def test_importer_output_is_shown_with_micro_relay_debug(tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("MICRO_RELAY_DEBUG", "1")
    code, _, err, _ = _compile(tmp_path, capfd, _qdq(0.5, 0, np.int32))
    assert code == 2
    assert "Error converting operator QuantizeLinear" in err and "Traceback" in err  # tvm's print, kept
    assert err.splitlines()[-1].startswith("error: apache-tvm's ONNX importer failed: TypeError")


def test_checker_refusal_is_one_line(tmp_path, capfd):
    model = _model([helper.make_node("Conv", ["x"], ["y"], name="conv")], [_vi("x", [1, 1, 4, 4])],
                   [_vi("y", [1, 1, 4, 4])])
    assert _refused(tmp_path, capfd, model) == \
        ("error: the ONNX checker refused the model: ValidationError: Node(conv) with schema(::Conv:11) has input "
         "size 1 not in range [min=2, max=3]. (m.onnx)")


def test_tvm_warnings_stay_off_stderr_on_success(tmp_path, capfd):
    """An input name tvm renames (it warns) and a model the checker warns about still compile quietly."""
    code, out_text, err, out = _compile(tmp_path, capfd, _relu(name="1x"))
    assert code == 0, err
    assert out_text == ""
    assert err.count("\n") == 1 and err.startswith("compiled "), err
    assert (out / "m.c").exists()


# -- quantization values reach the IR's checks ---------------------------------------------------------------

@pytest.mark.parametrize("scale", [0.0, float("nan"), -0.5, 1e-42, float("inf")],
                         ids=["zero", "nan", "negative", "denormal", "inf"])
def test_hostile_quantize_scale_is_one_line(tmp_path, capfd, scale):
    line = _refused(tmp_path, capfd, _qdq(scale, 0))
    assert "scale" in line and line.endswith(")"), line


@pytest.mark.parametrize("scale", [1e-42, float("inf"), 3.0e38], ids=["denormal", "inf", "huge"])
def test_hostile_quantize_scale_reaches_the_ir_unchanged(tmp_path, scale):
    """No crash in onnx, the folding or tvm: the value arrives in the IR, where the verifier judges it."""
    path = tmp_path / "q.onnx"
    path.write_bytes(_qdq(scale, 0).SerializeToString())
    graph = load_model(path)
    quantize = next(n for n in graph.nodes if n.op == "qnn.quantize")
    assert graph.type_of(quantize.outputs[0]).quant.scale == np.float32(scale)


def test_zero_point_outside_its_type(tmp_path, capfd):
    model = _qdq(0.5, 0)
    zero_point = model.graph.initializer[1]
    zero_point.ClearField("raw_data")
    zero_point.int32_data[:] = [1000]
    assert _refused(tmp_path, capfd, model) == \
        "error: initializer 'z' holds 1000 in int32_data, outside INT8's range [-128, 127] (m.onnx: initializer 'z')"


def test_zero_point_in_the_wrong_field(tmp_path, capfd):
    model = _qdq(0.5, 0)
    zero_point = model.graph.initializer[1]
    zero_point.ClearField("raw_data")
    zero_point.int64_data[:] = [2**40]
    assert _refused(tmp_path, capfd, model) == \
        ("error: initializer 'z' is INT8 but stores its values in int64_data (expected int32_data) "
         "(m.onnx: initializer 'z')")


def _per_channel_dense(scale_count, axis=0):
    """A QDQ dense layer whose weight dequantize has `scale_count` per-axis scales (4 output channels)."""
    inits = [numpy_helper.from_array(np.ones((4, 8), np.int8), "w"),
             numpy_helper.from_array(np.full(scale_count, 0.1, np.float32), "ws"),
             numpy_helper.from_array(np.zeros(scale_count, np.int8), "wz"),
             numpy_helper.from_array(np.array(0.1, np.float32), "s"),
             numpy_helper.from_array(np.array(0, np.int8), "z")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"], name="qx"),
             helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"], name="dqx"),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], name="dqw", axis=axis),
             helper.make_node("Gemm", ["xd", "wd"], ["g"], name="fc", transB=1),
             helper.make_node("QuantizeLinear", ["g", "s", "z"], ["gq"], name="qg"),
             helper.make_node("DequantizeLinear", ["gq", "s", "z"], ["y"], name="dqg")]
    return _model(nodes, [_vi("x", [1, 8])], [_vi("y", [1, 4])], inits)


@pytest.mark.parametrize("count, axis, message", [
    (3, 0, "per-axis scale 'ws' has 3 values for axis 0 of 'w', which has 4"),
    (9, 0, "per-axis scale 'ws' has 9 values for axis 0 of 'w', which has 4"),
    (4, 5, "axis 5 is outside the rank 2 of 'w'"),
], ids=["short", "long", "axis"])
def test_per_channel_parameters_that_do_not_fit_the_weight(tmp_path, capfd, count, axis, message):
    assert _refused(tmp_path, capfd, _per_channel_dense(count, axis)) == \
        f"error: {message} (m.onnx: node 'dqw' (DequantizeLinear))"


def test_per_channel_dense_that_fits_compiles(tmp_path, capfd):
    code, _, err, out = _compile(tmp_path, capfd, _per_channel_dense(4))
    assert code == 0, err
    assert (out / "m.c").exists()


def test_zero_point_shaped_unlike_its_scale(tmp_path, capfd):
    model = _per_channel_dense(4)
    zero_point = next(i for i in model.graph.initializer if i.name == "wz")
    zero_point.CopyFrom(numpy_helper.from_array(np.zeros(2, np.int8), "wz"))
    assert _refused(tmp_path, capfd, model) == \
        "error: zero point 'wz' has shape [2], its scale 'ws' [4] (m.onnx: node 'dqw' (DequantizeLinear))"
