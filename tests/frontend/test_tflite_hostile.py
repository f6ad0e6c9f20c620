"""Hostile TFLite models, one named test per class the fuzzers found: each is refused with one line
`error: <what> (<where>)` naming the field, or, where the value is legal, compiles to C that builds with
-Werror. Models are written with the project's TFLite writer; fields the writer will not write are patched
into its bytes at the position the schema gives them (fuzz/mutations.py)."""

from __future__ import annotations

import shutil
import struct

import numpy as np
import pytest

from fuzz.mutations import field_slots
from fuzz.outcome import c_build_problem, compile_bytes, sanitized_run_problem
from micro_relay.cli import main
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from support import tflite_models as m

INT32_MAX = 2 ** 31 - 1


def dense_model(in_scale=0.05, in_zp=0, w_scale=0.01, w_zp=0, out_scale=0.1, bias_dtype="int32", bias_zp=None,
                names=("x", "w", "b", "y"), output_shape=(1, 4)) -> bytes:
    """A 1x8 -> 4 int8 FULLY_CONNECTED with every quantization field a parameter."""
    b = TFLiteBuilder()
    x = b.tensor(names[0], (1, 8), "int8", scale=in_scale, zero_point=in_zp)
    w = b.tensor(names[1], (4, 8), "int8", data=np.arange(32).reshape(4, 8) - 16, scale=w_scale, zero_point=w_zp)
    bias_q = {} if bias_dtype == "float32" else {"scale": in_scale * w_scale, "zero_point": bias_zp}
    bias = b.tensor(names[2], (4,), bias_dtype, data=np.arange(4), **bias_q)
    y = b.tensor(names[3], output_shape, "int8", scale=out_scale, zero_point=0)
    b.op("FULLY_CONNECTED", [x, w, bias], [y])
    return b.build()


def patch(data: bytes, kind: str, value, occurrence: int = 0) -> bytes:
    """`data` with the `occurrence`-th field of class `kind` (fuzz/mutations.py) set to `value`."""
    pos, fmt = field_slots(data)[kind][occurrence]
    buf = bytearray(data)
    struct.pack_into(fmt, buf, pos, value)
    return bytes(buf)


def refused(data: bytes, *fragments: str) -> str:
    outcome = compile_bytes(data)
    assert outcome.kind == "error", outcome.detail
    for fragment in fragments:
        assert fragment in outcome.detail, outcome.detail
    return outcome.detail


def test_the_unpatched_model_compiles():
    assert compile_bytes(dense_model()).kind == "compiled"


# -- quantization ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("scale", [0.0, -0.05, float("nan"), float("inf"), float("-inf"), 1e-40, 1e-45])
def test_unusable_scale(scale):
    model = patch(dense_model(), "scale", scale)  # the first scale is tensor 0's
    refused(model, f"quantization scale {float(np.float32(scale))!r} is not a finite positive float32 normal",
            "tensor 0 'x'")


def test_rescale_needing_a_shift_over_31():
    # all scales valid, but in_s * w_s / out_s = 2^40: a shift of 41 would be undefined behaviour in C
    refused(dense_model(in_scale=2.0 ** 20, w_scale=2.0 ** 20, out_scale=1.0), "needs a shift of 41",
            "nn.dense")


def test_tiny_scale_with_relu6_saturates_the_clamp_and_builds(tmp_path):
    # 6 / 1.2e-38 overflows float32: the clamp saturates to the dtype's range instead of crashing
    model = m.unary_model("RELU6", in_quant=(1.2e-38, 0), out_quant=(1.2e-38, 0))
    outcome = compile_bytes(model)
    assert outcome.kind == "compiled", outcome.detail
    assert c_build_problem(outcome, tmp_path) is None


@pytest.mark.parametrize("zp, tensor, fragment", [
    (1000, "x", "zero point 1000 is outside int8 [-128, 127]"),
    (-129, "x", "zero point -129 is outside int8"),
])
def test_activation_zero_point_outside_int8(zp, tensor, fragment):
    refused(dense_model(in_zp=zp), fragment, f"tensor 0 '{tensor}'")


def test_bias_zero_point_2_40_is_not_truncated():
    refused(dense_model(bias_zp=2 ** 40), "zero point 1099511627776 is outside int32", "tensor 2 'b'")


def test_weight_zero_point_int_max():
    refused(dense_model(w_zp=INT32_MAX), f"zero point {INT32_MAX} is outside int8", "tensor 1 'w'")


def test_per_channel_scales_on_the_wrong_axis():
    model = m.depthwise_model(depth_multiplier=2)  # filter (1, 3, 3, 6), 6 scales on axis 3 (the only axis field)
    refused(patch(model, "quant_axis", 1), "6 per-channel scales do not match dimension 1 of [1, 3, 3, 6]")
    refused(patch(model, "quant_axis", -1), "6 per-channel scales do not match dimension -1")


def test_int8_dense_with_a_float32_bias():
    refused(dense_model(bias_dtype="float32"), "int8 dense needs an int32 bias, got float32", "nn.dense")


def test_onnx_qdq_scale_zero_gets_the_same_error(tmp_path):
    """The scale checks live in the IR (types.py, verify.py), so the ONNX QDQ path refuses the same way."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("tvm")
    from onnx import TensorProto, helper, numpy_helper

    from micro_relay.compiler import prepare_graph
    from micro_relay.errors import CompileError

    inits = [numpy_helper.from_array(np.array(0.0, np.float32), "s"),
             numpy_helper.from_array(np.array(0, np.int8), "z")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"]), helper.make_node("Relu", ["xd"], ["r"]),
             helper.make_node("QuantizeLinear", ["r", "s", "z"], ["rq"]),
             helper.make_node("DequantizeLinear", ["rq", "s", "z"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])], inits)
    path = tmp_path / "qdq.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    with pytest.raises(CompileError) as caught:
        prepare_graph(path)
    assert "quantization scale 0.0 is not a finite positive float32 normal" in str(caught.value)


@pytest.mark.parametrize("value", [-2 ** 31, 2 ** 31 - 1])
def test_int32_bias_without_accumulator_headroom(value):
    refused(patch(m.conv2d_model(), "constant", value), f"bias value {value} leaves the int32 accumulator no room",
            "nn.conv2d")


def test_int64_bias_beyond_tflite_micros_2_47_window():
    refused(patch(m.fully_connected_model(dtype="int16"), "constant", 2 ** 62),
            "leaves the int64 (+-2^47) accumulator no room", "nn.dense")


def test_dense_per_channel_scales_on_the_depth_axis():
    b = TFLiteBuilder()
    x = b.tensor("x", (1, 8), "int8", scale=0.05, zero_point=0)
    w = b.tensor("w", (4, 8), "int8", data=np.ones((4, 8)), scale=[0.01] * 8, zero_point=0, axis=1)
    y = b.tensor("y", (1, 4), "int8", scale=0.1, zero_point=0)
    b.op("FULLY_CONNECTED", [x, w], [y])
    refused(b.build(), "weight has 8 scales on axis 1 of [4, 8]; dense needs one per unit (axis 0)")


SANITIZERS = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


@SANITIZERS
@pytest.mark.parametrize("op, out_quant", [("TANH", (1 / 128, 0)), ("LOGISTIC", (1 / 256, -128))])
def test_tiny_logistic_scale_runs_clean_under_sanitizers(tmp_path, op, out_quant):
    # 1e-37 gave a saturation radius of 2^64 (an int32 literal out of range) and a right shift over 31
    outcome = compile_bytes(m.unary_model(op, in_quant=(1e-37, 0), out_quant=out_quant))
    assert outcome.kind == "compiled", outcome.detail
    assert sanitized_run_problem(outcome, tmp_path) is None


@SANITIZERS
def test_huge_slice_stride_runs_clean_under_sanitizers(tmp_path):
    model = m.strided_slice_model(begin=(0, 1, 0, 0), end=(1, 6, 6, 3), strides=(1, INT32_MAX, 1, 1))
    outcome = compile_bytes(model)
    assert outcome.kind == "compiled", outcome.detail
    assert sanitized_run_problem(outcome, tmp_path) is None


# -- indices ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("index", [-2, -1, 4, INT32_MAX])
def test_graph_output_index_out_of_range(index):
    refused(patch(dense_model(), "graph_io", index, 1), f"graph output 0 is tensor index {index}, outside 0..3")


def test_graph_input_index_minus_two_is_not_a_python_index():
    refused(patch(dense_model(), "graph_io", -2, 0), "graph input 0 is tensor index -2")


@pytest.mark.parametrize("slot, index, fragment", [
    (0, -2, "input 0 is tensor index -2"), (1, 99, "input 1 is tensor index 99"),
    (3, -1, "output 0 is tensor index -1"),
])
def test_operator_tensor_index_out_of_range(slot, index, fragment):
    refused(patch(dense_model(), "tensor_index", index, slot), fragment, "op 0 FULLY_CONNECTED")


def test_required_input_omitted():
    refused(patch(m.conv2d_model(), "tensor_index", -1, 1), "required input is absent", "op 0 CONV_2D")


# -- options ---------------------------------------------------------------------------------------------

def test_unknown_builtin_options_type():
    refused(patch(m.conv2d_model(), "options_type", 250),
            "builtin options are unknown type 250, expected Conv2DOptions", "op 0 CONV_2D")


def test_builtin_options_of_another_operator():
    from tflite.BuiltinOptions import BuiltinOptions

    refused(patch(m.conv2d_model(), "options_type", BuiltinOptions.AddOptions), "builtin options are AddOptions")


@pytest.mark.parametrize("axis", [-5, 4, 1000])
def test_concat_axis_out_of_range(axis):
    shapes = ((1, 4, 4, 2), (1, 4, 4, 2)) if axis == 1000 else ((1, 4, 4, 2), (1, 4, 4, 3))
    refused(m.concat_model(shapes=shapes, axis=axis), f"CONCATENATION axis {axis} is outside [-4, 4)")


# -- geometry and sizes ----------------------------------------------------------------------------------

def _conv(stride=(1, 1), dilation=(1, 1), input_shape=(1, 8, 8, 3), output_shape=(1, 6, 6, 4),
          padding="VALID") -> bytes:
    b = TFLiteBuilder()
    x = b.tensor("x", input_shape, "float32")
    w = b.tensor("w", (4, 3, 3, input_shape[3]), "float32", data=np.ones((4, 3, 3, input_shape[3])))
    y = b.tensor("y", output_shape, "float32")
    b.op("CONV_2D", [x, w], [y], padding=padding, stride=stride, dilation=dilation)
    return b.build()


def test_stride_int_max_overflows_index_arithmetic():
    refused(_conv(stride=(INT32_MAX, 1), output_shape=(1, 1, 6, 4)), "index arithmetic overflow int32")


def test_dilation_int_max_overflows_index_arithmetic():
    # SAME padding makes room for the dilated window: the pads alone reach 2^32
    refused(_conv(dilation=(INT32_MAX, 1), output_shape=(1, 8, 8, 4), padding="SAME"),
            "index arithmetic overflow int32")
    refused(_conv(dilation=(INT32_MAX, 1), output_shape=(1, 1, 6, 4)), "output height 1 is not the", "op 0 CONV_2D")


def test_output_size_that_asks_for_millions_of_padding_rows():
    # SAME over 8 rows gives 8 output rows; 2^24 would be 2^24 - 8 rows of padding (and a planner crawl)
    refused(_conv(output_shape=(1, 1 << 24, 4, 4), padding="SAME"), "output height 16777216 is not the 8 that SAME")


def test_pool_filter_int_max():
    refused(m.pool_model(filter_size=(INT32_MAX, 2), stride=(1, 1), padding="SAME"), "index arithmetic overflow int32")


def test_dimension_int_max_is_refused_from_its_shape():
    # 2^31-1 rows of 3 floats: refused from the shape, before any array or plan is made
    refused(_conv(input_shape=(1, INT32_MAX, 8, 3), output_shape=(1, INT32_MAX - 2, 6, 4)),
            "over the 2147483647 a 32-bit target can index", "tensor 0 'x'")


def test_tensors_together_over_2_31_bytes():
    model = m.unary_model("RELU6", shape=(1, 1 << 15, 1 << 15, 1))  # 1 GiB in, 1 GiB out
    refused(model, "the model's tensors need more than the 2147483647 bytes")


def test_dense_output_shape_without_dimensions():
    refused(dense_model(output_shape=()), "output shape [] does not hold 1 rows of 4")


# -- names -----------------------------------------------------------------------------------------------

HOSTILE_NAMES = ("x\ny", "a/*b", "c*/d", "e??/", "f\\", "g\x00h", "\x1b[2J")


def test_hostile_names_reach_c_comments_safely(tmp_path):
    outcome = compile_bytes(dense_model(names=HOSTILE_NAMES[:4]))
    assert outcome.kind == "compiled", outcome.detail
    assert c_build_problem(outcome, tmp_path / "a") is None
    outcome = compile_bytes(dense_model(names=HOSTILE_NAMES[3:]))
    assert outcome.kind == "compiled", outcome.detail
    assert c_build_problem(outcome, tmp_path / "b") is None


def test_hostile_name_keeps_the_error_on_one_line():
    line = refused(dense_model(in_zp=1000, names=("evil\nname\r*/", "w", "b", "y")), "tensor 0 'evil\\nname\\r*/'")
    assert "\n" not in line and "\r" not in line


# -- the CLI end to end, and the safety net --------------------------------------------------------------

def test_cli_refuses_a_hostile_model_with_one_line_and_no_files(tmp_path, capsys):
    model = tmp_path / "hostile.tflite"
    model.write_bytes(patch(dense_model(), "scale", 0.0))
    out = tmp_path / "out"
    code = main(["compile", str(model), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("error: quantization scale 0.0"), err
    assert not out.exists()


def test_safety_net_names_the_file_and_keeps_the_cause(tmp_path, capsys, monkeypatch):
    from micro_relay.frontend import UnexpectedModelError
    from micro_relay.frontend.tflite import builtins
    from tflite.BuiltinOperator import BuiltinOperator

    def broken(ctx, op, inputs, outputs):
        raise ValueError("a bug in a converter")

    monkeypatch.setitem(builtins.CONVERTERS, BuiltinOperator.FULLY_CONNECTED, broken)
    model = tmp_path / "fine.tflite"
    model.write_bytes(dense_model())
    with pytest.raises(UnexpectedModelError) as caught:
        compile_bytes_raw(model.read_bytes())
    assert caught.value.cause == "ValueError: a bug in a converter"
    code = main(["compile", str(model), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "unexpected ValueError" in err and "fine.tflite" in err
    assert not (tmp_path / "out").exists()


def compile_bytes_raw(data: bytes):
    from micro_relay.frontend.tflite import read_tflite

    return read_tflite(data, "fine.tflite")


def test_corrupt_flatbuffer_offsets_are_a_clean_error_not_the_safety_net():
    data = bytearray(dense_model())
    root = struct.unpack_from("<I", data, 0)[0]
    struct.pack_into("<i", data, root, -0x7FFF0000)  # the model table's vtable offset, far out of the file
    refused(bytes(data), "corrupt or truncated TFLite flatbuffer")
