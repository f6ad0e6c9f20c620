"""The TFLite writer: models it writes load in TFLite Micro and in our reader with the tensors, shapes and
quantization they were written with, the bytes follow the converter conventions TFLite Micro relies on,
and the same calls give the same bytes.

Expected values come from the test's own builder calls; TFLite Micro and the `tflite` schema package read
the bytes back independently of the writer.
"""

from __future__ import annotations

import numpy as np
import pytest
import tflite
from tflite.BuiltinOperator import BuiltinOperator
from tflite_micro import runtime
from support.tflite_movement_models import writer_examples as movement_examples

from micro_relay.frontend.tflite import read_tflite
from micro_relay.frontend.tflite.writer import SUPPORTED_OPERATORS, TFLiteBuilder
from micro_relay.ir.types import DType
from support.tflite_state_models import accumulator, svdf_model


def _conv_model() -> tuple[bytes, dict]:
    """A per-channel int8 conv with bias: what the test expects the model to hold."""
    rng = np.random.default_rng(7)
    weights = rng.integers(-127, 128, (4, 3, 3, 2)).astype(np.int8)
    bias = rng.integers(-1000, 1000, 4).astype(np.int32)
    b = TFLiteBuilder()
    b.tensor("input", (1, 6, 6, 2), "int8", scale=0.05, zero_point=-3)
    b.tensor("filter", (4, 3, 3, 2), "int8", data=weights, scale=[0.01, 0.02, 0.03, 0.04], zero_point=0, axis=0)
    b.tensor("bias", (4,), "int32", data=bias)
    b.tensor("output", (1, 3, 3, 4), "int8", scale=0.25, zero_point=5)
    b.op("CONV_2D", ["input", "filter", "bias"], ["output"], stride=(2, 2), padding="SAME", activation="RELU")
    return b.build(), {"weights": weights, "bias": bias}


def _model(data: bytes):
    return tflite.Model.GetRootAsModel(bytearray(data), 0)


# -- TFLite Micro accepts what we write -------------------------------------------------------------------

def test_tflm_reads_inputs_and_outputs_as_written():
    data, _ = _conv_model()
    interpreter = runtime.Interpreter.from_bytes(data)
    inp, out = interpreter.get_input_details(0), interpreter.get_output_details(0)
    assert inp["dtype"] == np.int8 and list(inp["shape"]) == [1, 6, 6, 2]
    assert inp["quantization_parameters"]["scales"].tolist() == [np.float32(0.05)]
    assert inp["quantization_parameters"]["zero_points"].tolist() == [-3]
    assert out["dtype"] == np.int8 and list(out["shape"]) == [1, 3, 3, 4]
    assert out["quantization_parameters"]["scales"].tolist() == [np.float32(0.25)]
    assert out["quantization_parameters"]["zero_points"].tolist() == [5]


def test_tflm_runs_the_written_options():
    """A 2x2 average pool, stride 2, VALID, on a known float input: TFLite Micro's output shows the
    filter size, stride and padding were read as written."""
    b = TFLiteBuilder()
    b.tensor("x", (1, 4, 4, 1), "float32")
    b.tensor("y", (1, 2, 2, 1), "float32")
    b.op("AVERAGE_POOL_2D", ["x"], ["y"], filter_size=(2, 2), stride=(2, 2), padding="VALID")
    interpreter = runtime.Interpreter.from_bytes(b.build())
    interpreter.set_input(np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1), 0)
    interpreter.invoke()
    np.testing.assert_array_equal(interpreter.get_output(0).ravel(), [2.5, 4.5, 10.5, 12.5])


def test_tflm_reads_constant_data_as_written():
    """y = x + c with a constant c: TFLite Micro's sum shows the constant bytes landed intact."""
    c = np.array([[1.5, -2.0, 3.25]], dtype=np.float32)
    b = TFLiteBuilder()
    b.tensor("x", (2, 3), "float32")
    b.tensor("c", (1, 3), "float32", data=c)
    b.tensor("y", (2, 3), "float32")
    b.op("ADD", ["x", "c"], ["y"])
    interpreter = runtime.Interpreter.from_bytes(b.build())
    x = np.array([[0, 1, 2], [3, 4, 5]], dtype=np.float32)
    interpreter.set_input(x, 0)
    interpreter.invoke()
    np.testing.assert_array_equal(interpreter.get_output(0), x + c)


# -- our reader reads what we write ----------------------------------------------------------------------

def test_reader_sees_tensors_shapes_quantization_and_data():
    data, expected = _conv_model()
    graph = read_tflite(data)
    assert graph.inputs == ("input",) and graph.outputs == ("output",)
    t = {name: graph.type_of(name) for name in ("input", "filter", "bias", "output")}
    assert t["input"].shape == (1, 6, 6, 2) and t["input"].dtype is DType.INT8
    assert t["input"].quant.scales == (float(np.float32(0.05)),) and t["input"].quant.zero_points == (-3,)
    assert t["filter"].quant.axis == 0
    assert t["filter"].quant.scales == tuple(float(np.float32(s)) for s in (0.01, 0.02, 0.03, 0.04))
    assert t["filter"].quant.zero_points == (0, 0, 0, 0)
    assert t["bias"].dtype is DType.INT32 and t["bias"].quant is None
    assert t["output"].shape == (1, 3, 3, 4) and t["output"].quant.zero_points == (5,)
    np.testing.assert_array_equal(graph.tensors["filter"].data, expected["weights"])
    np.testing.assert_array_equal(graph.tensors["bias"].data, expected["bias"])


def test_reader_sees_operator_options():
    data, _ = _conv_model()
    (node,) = read_tflite(data).nodes
    assert node.op == "nn.conv2d"
    assert node.attrs["strides"] == (2, 2) and node.attrs["dilation"] == (1, 1)
    assert node.attrs["activation"] == "relu"
    assert node.attrs["padding"] == (0, 0, 1, 1)  # SAME, 6 -> 3 with a 3x3 window: one row/column after


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16", "int32", "int64", "uint8", "bool"])
def test_constant_data_round_trips(dtype):
    rng = np.random.default_rng(3)
    if dtype == "float32":
        values = (rng.standard_normal((2, 3, 5)) * 100).astype(dtype)
    elif dtype == "bool":
        values = rng.integers(0, 2, (2, 3, 5)).astype(dtype)
    else:
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, (2, 3, 5), dtype=dtype, endpoint=True)
    b = TFLiteBuilder()
    b.tensor("c", values.shape, dtype, data=values)
    b.tensor("x", values.shape, dtype)
    b.tensor("y", values.shape, dtype)
    b.op("CONCATENATION", ["x", "c"], ["y"], axis=0)  # any op: the reader only needs the tensors
    graph = read_tflite(b.inputs("x").outputs("y").build())
    np.testing.assert_array_equal(graph.tensors["c"].data, values)
    assert graph.tensors["c"].data.dtype == np.dtype(dtype)


def test_per_channel_quantization_on_the_depthwise_axis():
    b = TFLiteBuilder()
    b.tensor("x", (1, 4, 4, 3), "int8", scale=0.1, zero_point=1)
    b.tensor("w", (1, 3, 3, 3), "int8", data=np.ones((1, 3, 3, 3)), scale=[0.1, 0.2, 0.3], zero_point=0, axis=3)
    b.tensor("y", (1, 4, 4, 3), "int8", scale=0.5, zero_point=0)
    b.op("DEPTHWISE_CONV_2D", ["x", "w"], ["y"], padding="SAME", depth_multiplier=1)
    data = b.build()
    runtime.Interpreter.from_bytes(data)  # TFLite Micro's Prepare checks the axis against the filter shape
    assert read_tflite(data).type_of("w").quant.axis == 3


def test_omitted_optional_input_is_index_minus_one():
    b = TFLiteBuilder()
    b.tensor("x", (2, 3), "float32")
    b.tensor("w", (4, 3), "float32", data=np.eye(4, 3))
    b.tensor("y", (2, 4), "float32")
    b.op("FULLY_CONNECTED", ["x", "w", None], ["y"])
    data = b.build()
    assert _model(data).Subgraphs(0).Operators(0).InputsAsNumpy().tolist() == [0, 1, -1]
    interpreter = runtime.Interpreter.from_bytes(data)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    interpreter.set_input(x, 0)
    interpreter.invoke()
    np.testing.assert_array_equal(interpreter.get_output(0), x @ np.eye(4, 3, dtype=np.float32).T)
    assert read_tflite(data).nodes[0].inputs == ("x", "w", "")


# -- file layout -----------------------------------------------------------------------------------------

def test_header_version_and_empty_buffer_zero():
    data, _ = _conv_model()
    assert data[4:8] == b"TFL3"
    model = _model(data)
    assert model.Version() == 3
    assert model.Buffers(0).DataLength() == 0
    subgraph = model.Subgraphs(0)
    activations = [subgraph.Tensors(i) for i in range(subgraph.TensorsLength())
                   if subgraph.Tensors(i).Name() in (b"input", b"output")]
    assert all(t.Buffer() == 0 for t in activations)


def test_operator_codes_set_both_fields_once_per_builtin():
    b = TFLiteBuilder()
    b.tensor("x", (1, 4), "float32")
    b.tensor("h", (1, 4), "float32")
    b.tensor("g", (1, 4), "float32")
    b.tensor("y", (1, 4), "float32")
    b.op("RELU", ["x"], ["h"]).op("LEAKY_RELU", ["h"], ["g"], alpha=0.5).op("RELU", ["g"], ["y"])
    model = _model(b.build())
    codes = [model.OperatorCodes(i) for i in range(model.OperatorCodesLength())]
    assert [c.BuiltinCode() for c in codes] == [BuiltinOperator.RELU, BuiltinOperator.LEAKY_RELU]
    assert [c.DeprecatedBuiltinCode() for c in codes] == [BuiltinOperator.RELU, BuiltinOperator.LEAKY_RELU]
    ops = model.Subgraphs(0)
    assert [ops.Operators(i).OpcodeIndex() for i in range(ops.OperatorsLength())] == [0, 1, 0]


def test_constant_buffers_are_16_byte_aligned():
    b = TFLiteBuilder()
    b.tensor("x", (1, 3), "int8", scale=0.1, zero_point=0)
    for i, n in enumerate((1, 3, 7)):  # odd sizes push the following buffers off alignment unless padded
        b.tensor(f"c{i}", (n,), "int8", data=np.arange(n), scale=0.1, zero_point=0)
    b.tensor("y", (1, 3), "int8", scale=0.1, zero_point=0)
    b.op("RELU", ["x"], ["y"])
    data = b.build()
    model = _model(data)
    for i in range(1, model.BuffersLength()):
        buf = model.Buffers(i)
        vector_start = buf._tab.Vector(buf._tab.Offset(4))  # Buffer.data is field 0 (vtable slot 4)
        assert vector_start % 16 == 0, f"buffer {i} data at offset {vector_start}"


def test_same_calls_give_same_bytes():
    assert _conv_model()[0] == _conv_model()[0]


def test_default_inputs_and_outputs():
    """Without .inputs/.outputs: non-constant tensors nothing produces, produced tensors nothing consumes."""
    b = TFLiteBuilder()
    b.tensor("x", (1, 4), "float32")
    b.tensor("c", (1, 4), "float32", data=np.ones(4))
    b.tensor("h", (1, 4), "float32")
    b.tensor("y", (1, 4), "float32")
    b.op("ADD", ["x", "c"], ["h"]).op("RELU", ["h"], ["y"])
    graph = read_tflite(b.build())
    assert graph.inputs == ("x",) and graph.outputs == ("y",)


# -- every supported operator ----------------------------------------------------------------------------

def _one_op_models():
    """One small float model per supported operator, with the options it is written with."""
    f = "float32"

    def single(op, in_shape, out_shape, extra=(), **options):
        b = TFLiteBuilder()
        b.tensor("x", in_shape, f)
        names = ["x"]
        for name, shape, dtype, data in extra:
            names.append(b.tensor(name, shape, dtype, data=data) if name else None)
        b.tensor("y", out_shape, f)
        b.op(op, names, ["y"], **options)
        return b.inputs("x").outputs("y").build()

    w4 = np.ones((2, 3, 3, 1), np.float32)
    yield "CONV_2D", single("CONV_2D", (1, 5, 5, 1), (1, 3, 3, 2), [("w", (2, 3, 3, 1), f, w4)],
                            stride=(2, 2), padding="SAME", dilation=(1, 1), activation="RELU6")
    yield "DEPTHWISE_CONV_2D", single("DEPTHWISE_CONV_2D", (1, 5, 5, 1), (1, 3, 3, 2),
                                      [("w", (1, 3, 3, 2), f, np.ones((1, 3, 3, 2)))], padding="VALID",
                                      depth_multiplier=2)
    b = TFLiteBuilder()
    b.tensor("s", (4,), "int32", data=[1, 6, 6, 2])
    b.tensor("w", (2, 3, 3, 1), f, data=w4)
    b.tensor("x", (1, 3, 3, 1), f)
    b.tensor("y", (1, 6, 6, 2), f)
    b.op("TRANSPOSE_CONV", ["s", "w", "x", None], ["y"], stride=(2, 2), padding="SAME")
    yield "TRANSPOSE_CONV", b.inputs("x").outputs("y").build()
    yield "FULLY_CONNECTED", single("FULLY_CONNECTED", (2, 3), (2, 4), [("w", (4, 3), f, np.ones((4, 3)))],
                                    activation="RELU", keep_num_dims=True)
    yield "AVERAGE_POOL_2D", single("AVERAGE_POOL_2D", (1, 4, 4, 1), (1, 2, 2, 1), filter_size=2, stride=2,
                                    padding="VALID")
    yield "MAX_POOL_2D", single("MAX_POOL_2D", (1, 4, 4, 1), (1, 4, 4, 1), filter_size=(3, 3), padding="SAME")
    for op in ("ADD", "SUB", "MUL"):
        yield op, single(op, (2, 3), (2, 3), [("c", (3,), f, np.arange(3))], activation="RELU_N1_TO_1")
    yield "RESHAPE", single("RESHAPE", (2, 3), (3, 2), [("shape", (2,), "int32", [3, 2])], new_shape=[3, 2])
    yield "SOFTMAX", single("SOFTMAX", (2, 3), (2, 3), beta=0.5)
    yield "PAD", single("PAD", (2, 3), (4, 4), [("p", (2, 2), "int32", [[1, 1], [0, 1]])])
    yield "PADV2", single("PADV2", (2, 3), (4, 4), [("p", (2, 2), "int32", [[1, 1], [0, 1]]),
                                                    ("v", (1,), f, [2.5])])
    yield "STRIDED_SLICE", single("STRIDED_SLICE", (4, 6), (2, 3),
                                  [("b", (2,), "int32", [0, 0]), ("e", (2,), "int32", [4, 6]),
                                   ("s", (2,), "int32", [2, 2])], begin_mask=1, end_mask=2)
    yield "LEAKY_RELU", single("LEAKY_RELU", (2, 3), (2, 3), alpha=0.25)
    yield "CONCATENATION", single("CONCATENATION", (2, 3), (2, 5), [("c", (2, 2), f, np.ones((2, 2)))], axis=-1)
    yield "MEAN", single("MEAN", (2, 3, 4), (2, 1, 1), [("a", (2,), "int32", [1, 2])], keep_dims=True)
    for op in ("LOGISTIC", "TANH", "RELU", "RELU6"):
        yield op, single(op, (2, 3), (2, 3))
    # reductions, normalization, resize
    for op in ("SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"):
        yield op, single(op, (2, 3, 4), (2, 4), [("a", (1,), "int32", [1])], keep_dims=False)
    for op in ("ARG_MAX", "ARG_MIN"):
        b = TFLiteBuilder()
        b.tensor("x", (2, 5), f)
        b.tensor("a", (1,), "int32", data=[1])
        b.tensor("y", (2,), "int32")
        b.op(op, ["x", "a"], ["y"], output_type="int32")
        yield op, b.inputs("x").outputs("y").build()
    yield "L2_NORMALIZATION", single("L2_NORMALIZATION", (2, 3), (2, 3))
    for op in ("RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR"):
        yield op, single(op, (1, 2, 3, 1), (1, 4, 5, 1), [("s", (2,), "int32", [4, 5])], half_pixel_centers=True)
    b = TFLiteBuilder()
    b.tensor("x", (2, 3), f)
    b.tensor("q", (2, 3), "int8", scale=0.1, zero_point=3)
    b.tensor("y", (2, 3), f)
    b.op("QUANTIZE", ["x"], ["q"]).op("DEQUANTIZE", ["q"], ["y"])
    yield "QUANTIZE+DEQUANTIZE", b.build()
    yield from movement_examples()  # data movement and shape (support/tflite_movement_models.py)
    # unary math
    for op in ("ABS", "NEG", "EXP", "LOG", "SQRT", "RSQRT", "SQUARE", "FLOOR", "CEIL", "ROUND", "HARD_SWISH", "ELU"):
        yield op, single(op, (2, 3), (2, 3))
    yield "GELU", single("GELU", (2, 3), (2, 3), approximate=True)
    # recurrent: the states are variable tensors (not graph inputs), all 24 inputs listed
    b = TFLiteBuilder()
    x = b.tensor("x", (1, 3, 2), f)
    w = [b.tensor(f"w{k}", (4, 2 if k < 4 else 4), f, data=np.full((4, 2 if k < 4 else 4), 0.1)) for k in range(8)]
    bias = [b.tensor(f"b{k}", (4,), f, data=np.zeros(4)) for k in range(4)]
    h, c = (b.tensor(n, (1, 4), f, variable=True) for n in ("h", "c"))
    b.tensor("y", (1, 3, 4), f)
    b.op("UNIDIRECTIONAL_SEQUENCE_LSTM", [x, *w, None, None, None, *bias, None, None, h, c, None, None, None, None],
         ["y"], cell_clip=2.0)
    yield "UNIDIRECTIONAL_SEQUENCE_LSTM", b.inputs("x").outputs("y").build()
    # stateful models: resource variables (a running sum, initialized by CALL_ONCE) and SVDF
    yield "CALL_ONCE+VAR_HANDLE+READ_VARIABLE+ADD+ASSIGN_VARIABLE", accumulator((1, 4), f, init=np.arange(4))
    yield "SVDF", svdf_model(batch=1, input_size=3, units=2, rank=1, memory=4, dtype=f)
    yield "LOG_SOFTMAX", single("LOG_SOFTMAX", (2, 3), (2, 3))
    yield from _binary_math_models()


def _binary_math_models():
    """The binary math family, one model per operator."""
    def two(op, dtype, out_dtype, **options):
        b = TFLiteBuilder()
        b.tensor("x", (2, 3), dtype)
        b.tensor("c", (3,), dtype, data=np.arange(1, 4))
        b.tensor("y", (2, 3), out_dtype)
        b.op(op, ["x", "c"], ["y"], **options)
        return b.inputs("x").outputs("y").build()

    def select(op):
        b = TFLiteBuilder()
        b.tensor("x", (2, 3), "float32")
        b.tensor("cond", (2, 3), "bool", data=np.eye(2, 3))
        b.tensor("z", (2, 3), "float32", data=np.zeros((2, 3)))
        b.tensor("y", (2, 3), "float32")
        b.op(op, ["cond", "x", "z"], ["y"])
        return b.inputs("x").outputs("y").build()

    for op in ("MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "FLOOR_DIV", "FLOOR_MOD", "PRELU", "POW"):
        yield op, two(op, "float32", "float32")
    yield "DIV", two("DIV", "float32", "float32", activation="RELU")
    for op in ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"):
        yield op, two(op, "float32", "bool")
    for op in ("LOGICAL_AND", "LOGICAL_OR"):
        yield op, two(op, "bool", "bool")
    b = TFLiteBuilder()
    b.tensor("x", (2, 3), "bool")
    b.tensor("y", (2, 3), "bool")
    b.op("LOGICAL_NOT", ["x"], ["y"])
    yield "LOGICAL_NOT", b.build()
    yield "SELECT_V2", select("SELECT_V2")
    yield "SELECT", select("SELECT")
    b = TFLiteBuilder()
    b.tensor("x", (2, 3, 4), "float32")
    b.tensor("w", (2, 5, 4), "float32", data=np.ones((2, 5, 4)))
    b.tensor("y", (2, 3, 5), "float32")
    b.op("BATCH_MATMUL", ["x", "w"], ["y"], adj_x=False, adj_y=True)
    yield "BATCH_MATMUL", b.inputs("x").outputs("y").build()


ONE_OP_MODELS = dict(_one_op_models())
NO_TFLM_KERNEL = {"REDUCE_PROD", "TILE", "POW", "SELECT", "GELU"}  # TFLite has them, TFLite Micro does not: only read back


def test_every_supported_operator_has_a_model():
    covered = {op for name in ONE_OP_MODELS for op in name.split("+")}
    assert covered == set(SUPPORTED_OPERATORS)


@pytest.mark.parametrize("name", sorted(ONE_OP_MODELS))
def test_operator_model_runs_in_tflm_and_reads_back(name):
    """TFLite Micro prepares and runs it; our reader sees the same graph inputs and outputs."""
    data = ONE_OP_MODELS[name]
    graph = read_tflite(data)
    if name not in NO_TFLM_KERNEL:
        interpreter = runtime.Interpreter.from_bytes(data)
        details = interpreter.get_input_details(0)
        interpreter.set_input(np.ones(details["shape"], dtype=details["dtype"]), 0)
        interpreter.invoke()
        assert [list(graph.type_of(n).shape) for n in graph.inputs] == [list(details["shape"])]
        assert list(graph.type_of(graph.outputs[0]).shape) == list(interpreter.get_output_details(0)["shape"])
    expected_ops = name.split("+")
    model = _model(data)
    codes = [model.OperatorCodes(i).BuiltinCode() for i in range(model.OperatorCodesLength())]
    assert codes == [getattr(BuiltinOperator, op) for op in expected_ops]


def test_gelu_reads_back_with_its_option():
    """GELU, which TFLite Micro cannot run, is still written right: GeluOptions.approximate reaches the node."""
    graph = read_tflite(ONE_OP_MODELS["GELU"])
    assert [(n.op, dict(n.attrs)) for n in graph.nodes] == [("nn.gelu", {"approximate": True})]


# -- misuse is reported ----------------------------------------------------------------------------------

def test_errors_name_the_problem():
    b = TFLiteBuilder()
    b.tensor("x", (1, 4), "float32")
    with pytest.raises(ValueError, match="defined twice"):
        b.tensor("x", (1, 4), "float32")
    with pytest.raises(ValueError, match="do not fill"):
        b.tensor("c", (2, 2), "float32", data=np.ones(3))
    with pytest.raises(ValueError, match="need an axis"):
        b.tensor("w", (2, 3), "int8", scale=[0.1, 0.2])
    with pytest.raises(ValueError, match="2 scales for dimension 1"):
        b.tensor("w", (2, 3), "int8", scale=[0.1, 0.2], axis=1)
    with pytest.raises(ValueError, match="not supported by the writer"):
        b.op("HASHTABLE_LOOKUP", ["x"], ["x"])
    with pytest.raises(TypeError, match="not \\['strides'\\]"):
        b.op("MAX_POOL_2D", ["x"], ["x"], strides=2, padding="SAME", filter_size=2)
    with pytest.raises(TypeError, match="needs the option 'alpha'"):
        b.op("LEAKY_RELU", ["x"], ["x"])
    with pytest.raises(ValueError, match="unknown padding"):
        b.op("CONV_2D", ["x", "x"], ["x"], padding="FULL")
    with pytest.raises(KeyError, match="nope"):
        b.op("RELU", ["nope"], ["x"])
