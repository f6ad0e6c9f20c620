"""int16 activations with int8 weights (TFLite's 16x8 scheme) for the layers the user names (`--int16 OP`).

two_convs (graphs.py):  x ─ conv1 ─ relu ─ conv2 ─ reshape ─ dense ─► logits
With conv1 in int16 it reads x/int16 (float -> int16) and writes int16, which relu reads as conv1/int8
(int16 -> int8); the layer's SQNR rises from 36.6 dB (int8) to 46.8 dB, where the int8 weights now set the
limit. Then every shape with every node that can in int16, each conversion between types made once, the
command line, and the refusals (hard_swish and elu have no int16 kernel)."""

from __future__ import annotations

import numpy as np
import pytest

from micro_relay.cli import main
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.ir.types import DType, Quant
from micro_relay.quantize import QuantizeOptions, quantize_graph, quantize_with_report
from micro_relay.quantize.observe import TensorStats, choose_range
from micro_relay.quantize.rewrite import plan_domains
from micro_relay.quantize.rules import RULES

from .graphs import SHAPES, Builder, linear, residual, samples, two_convs
from .support import assert_c_matches_reference, split

I8, I16, I32, I64, F32 = DType.INT8, DType.INT16, DType.INT32, DType.INT64, DType.FLOAT32
MIN_OUTPUT_SQNR_DB = 25.0  # as test_rewrite.py; all-int16 graphs land at 36-51 dB
INT16_GAIN_DB = 8.0  # conv1 of two_convs: 46.8 dB in int16 vs 36.6 dB in int8 (10.2 dB measured)
CONVERSIONS = ("qnn.quantize", "qnn.dequantize")


def producer_of(q, tensor):
    return next(n for n in q.nodes if tensor in n.outputs)


def test_int16_layer_reads_and_writes_int16_and_is_more_accurate(tmp_path):
    graph = two_convs()
    calibration = samples(graph, 48, seed=0)
    _, int8_report = quantize_with_report(graph, calibration)
    q, report = quantize_with_report(graph, calibration, QuantizeOptions(int16=("conv1",)))

    types = {n.name: (q.type_of(n.inputs[0]), q.type_of(n.outputs[0])) for n in q.nodes if n.name}
    assert [(name, i.dtype, o.dtype) for name, (i, o) in types.items()] == [
        ("conv1", I16, I16), ("relu", I8, I8), ("conv2", I8, I8), ("flat", I8, I8), ("logits", I8, I8)]
    conv1 = next(n for n in q.nodes if n.name == "conv1")
    assert conv1.inputs[0] == "x/int16" and producer_of(q, "x/int16").op == "qnn.quantize"
    relu = next(n for n in q.nodes if n.name == "relu")
    assert relu.inputs[0] == "conv1/int8" and producer_of(q, "conv1/int8").inputs == ("conv1",)  # int16 -> int8

    peak = float(np.abs(calibration["x"]).max())  # symmetric: scale max(|lo|, |hi|) / 32767, zero point 0
    assert types["conv1"][0].quant.zero_point == types["conv1"][1].quant.zero_point == 0
    np.testing.assert_allclose(types["conv1"][0].quant.scale, peak / 32767, rtol=1e-6)
    w, b = q.type_of(conv1.inputs[1]), q.type_of(conv1.inputs[2])
    assert w.dtype == I8 and len(w.quant.scales) == 8 and set(w.quant.zero_points) == {0}
    assert b.dtype == I64
    np.testing.assert_allclose(b.quant.scales, np.float32(types["conv1"][0].quant.scale) * np.float32(w.quant.scales),
                               rtol=1e-6)

    int8_db = {layer.tensor: layer.sqnr_db for layer in int8_report.layers}
    layers = {layer.tensor: layer for layer in report.layers}
    assert [layer.dtype for layer in report.layers] == ["int16", "int8", "int8", "int8", "int8"]
    assert layers["conv1"].sqnr_db > int8_db["conv1"] + INT16_GAIN_DB, (layers["conv1"].sqnr_db, int8_db["conv1"])
    assert dict(report.outputs)["logits"] > dict(int8_report.outputs)["logits"]
    text = report.format()
    assert "int16 activations in 1 layer" in text
    assert any(" int16 " in line and line.rstrip().endswith("conv1") for line in text.splitlines())

    assert_c_matches_reference(q, split(samples(q, 16, seed=7), q), tmp_path)


def test_int16_between_int8_layers(tmp_path):
    """conv2 in int16: relu/int16 (int8 -> int16) in, and the reshape after it follows it into int16, so the
    int8 dense reads flat/int8 (int16 -> int8)."""
    graph = two_convs()
    q = quantize_graph(graph, samples(graph, 32, seed=0), QuantizeOptions(int16=("conv2",)))
    ops = [(n.op, tuple(q.type_of(i).dtype for i in n.inputs[:1]), q.type_of(n.outputs[0]).dtype) for n in q.nodes]
    assert ops == [("qnn.quantize", (F32,), I8), ("nn.conv2d", (I8,), I8), ("nn.relu", (I8,), I8),
                   ("qnn.quantize", (I8,), I16), ("nn.conv2d", (I16,), I16), ("reshape", (I16,), I16),
                   ("qnn.quantize", (I16,), I8), ("nn.dense", (I8,), I8), ("qnn.dequantize", (I8,), F32)]
    assert_c_matches_reference(q, split(samples(q, 8, seed=7), q), tmp_path)


def every_int16_node(graph):
    return tuple(n.name for n in graph.nodes if RULES[n.op].int16)


@pytest.mark.parametrize("int8_io", [False, True], ids=["float_io", "int8_io"])
@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_in_int16(shape, int8_io, tmp_path):
    """Every node that has an int16 kernel in int16: each op's prepare accepts it, int16 tensors are
    symmetric, biases int64, softmax, sigmoid and tanh output (1/32768, 0), each conversion exists once, and
    the C is bit-exact with the reference interpreter."""
    make, scale = SHAPES[shape]
    graph = make()
    q, report = quantize_with_report(graph, samples(graph, 48, seed=0, scale=scale),
                                     QuantizeOptions(int16=every_int16_node(graph), int8_io=int8_io))
    for name, sqnr in report.outputs:
        assert sqnr > MIN_OUTPUT_SQNR_DB, f"{shape}: output {name} SQNR {sqnr:.1f} dB"
    assert {layer.dtype for layer in report.layers if RULES[layer.op].int16} == {"int16"}
    for name in (*q.inputs, *q.outputs):
        assert q.type_of(name).dtype == (I8 if int8_io else F32)
    for name, tensor in q.tensors.items():
        if tensor.type.dtype == I16:
            assert tensor.type.quant == Quant.tensor(tensor.type.quant.scale, 0), name
    conversions = [(n.inputs[0], q.type_of(n.outputs[0])) for n in q.nodes if n.op in CONVERSIONS]
    assert len(conversions) == len(set(conversions))
    for node in q.nodes:
        if node.op in CONVERSIONS:
            continue
        out = q.type_of(node.outputs[0])
        if out.dtype == I16:
            data = [q.type_of(n) for n in node.inputs[:1]]
            assert all(t.dtype == I16 for t in data), node.label
        if node.op in ("nn.conv2d", "nn.depthwise_conv2d", "nn.conv2d_transpose", "nn.dense"):
            assert q.type_of(node.inputs[1]).dtype == I8 and q.type_of(node.inputs[2]).dtype == I64
        if node.op in ("nn.softmax", "sigmoid", "tanh"):
            assert out.quant == Quant.tensor(1 / 32768, 0), node.label
    if int8_io:
        rng = np.random.default_rng(3)
        held_out = [[rng.integers(-128, 128, q.type_of(n).shape).astype(np.int8) for n in q.inputs] for _ in range(6)]
    else:
        held_out = split(samples(q, 6, seed=7, scale=scale), q)
    assert_c_matches_reference(q, held_out, tmp_path)


def test_each_conversion_between_types_is_made_once(tmp_path):
    """residual with b in int16: a (int8) is read by b as a/int16 and by the add as itself; b is read by the
    add as b/int8. linear with hidden and logits in int16 and softmax kept in float: x/int16 from the float
    input, logits/int16 dequantized for the float softmax."""
    graph = residual()
    q = quantize_graph(graph, samples(graph, 32, seed=0), QuantizeOptions(int16=("b",)))
    conversions = {(n.inputs[0], n.outputs[0]): (q.type_of(n.inputs[0]).dtype, q.type_of(n.outputs[0]).dtype)
                   for n in q.nodes if n.op in CONVERSIONS}
    assert conversions == {("x", "x/int8"): (F32, I8), ("a", "a/int16"): (I8, I16), ("b", "b/int8"): (I16, I8),
                           ("out/int8", "out"): (I8, F32)}
    add = next(n for n in q.nodes if n.op == "add")
    assert add.inputs == ("a", "b/int8")
    assert_c_matches_reference(q, split(samples(q, 8, seed=7), q), tmp_path / "residual")

    graph = linear()
    q = quantize_graph(graph, samples(graph, 32, seed=0),
                       QuantizeOptions(int16=("hidden", "logits"), keep_float=("softmax",)))
    assert [(n.op, q.type_of(n.outputs[0]).dtype) for n in q.nodes] == [
        ("qnn.quantize", I16), ("nn.dense", I16), ("nn.dense", I16), ("qnn.dequantize", F32), ("nn.softmax", F32)]
    assert_c_matches_reference(q, split(samples(q, 8, seed=7), q), tmp_path / "linear")


def test_int16_names_match_like_keep_float():
    """By op name, op name without `nn.`, or node name; data movement after an int16 node follows it."""
    graph = two_convs()
    by_name = {"nn.conv2d": [I16, I8, I16, I16, I8], "conv2d": [I16, I8, I16, I16, I8],
               "conv1": [I16, I8, I8, I8, I8], "relu": [I8, I16, I8, I8, I8]}
    for name, expected in by_name.items():
        assert plan_domains(graph, int16=(name,)) == expected, name
    assert plan_domains(graph, keep_float=("conv2",), int16=("conv1",)) == [I16, I8, F32, F32, I8]


@pytest.mark.parametrize("op", ["nn.hard_swish", "nn.elu"])
def test_op_without_int16_kernel_is_refused_in_one_line(op):
    """x[1,12] ─ dense ─► h ─ op ─► y, with both named by --int16."""
    b = Builder(8)
    graph = b.graph(b.op(op, (b.dense(b.input("x", (1, 12)), "h", 8),), "y"))
    with pytest.raises(CompileError) as info:
        quantize_graph(graph, samples(graph, 4, seed=0), QuantizeOptions(int16=(op, "h")))
    message = str(info.value)
    assert "\n" not in message
    assert f"no int16 kernel for {op}" in message and f"--keep-float {op}" in message


def test_int16_option_errors():
    graph = two_convs()
    data = samples(graph, 4, seed=0)
    with pytest.raises(CompileError, match="--int16 'softmax' matches no op of the model"):
        quantize_graph(graph, data, QuantizeOptions(int16=("softmax",)))
    with pytest.raises(CompileError, match="named by both --keep-float and --int16"):
        quantize_graph(graph, data, QuantizeOptions(int16=("conv1",), keep_float=("nn.conv2d",)))


def test_mse_search_judges_int16_tensors_by_their_own_error():
    """int16 steps are 256 times finer, so clipping costs relatively more: the int16 range is never narrower
    (here it keeps the whole observed range, while int8 clips both ends)."""
    values = np.random.default_rng(0).standard_normal(20000).astype(np.float32)
    values[0] = 30.0
    stats = TensorStats(float(values.min()), float(values.max()), [values])
    lo8, hi8 = choose_range(stats, "mse")
    lo16, hi16 = choose_range(stats, "mse", dtype=I16)
    assert (lo16, hi16) == (stats.lo, stats.hi) and lo8 > stats.lo and hi8 < stats.hi
    graph = two_convs()
    q = quantize_graph(graph, samples(graph, 16, seed=0), QuantizeOptions(method="mse", int16=("conv1",)))
    assert q.type_of("conv1").dtype == I16 and q.type_of("conv1").quant.zero_point == 0


# -- the command line ------------------------------------------------------------------------------------

def float_tflite(path):
    """x[1,8] ─ FULLY_CONNECTED 6 relu ─ FULLY_CONNECTED 4 ─ LOGISTIC ─► y, float32, seeded weights."""
    rng = np.random.default_rng(11)
    b = TFLiteBuilder()
    x = b.tensor("x", (1, 8), "float32")
    w1 = b.tensor("w1", (6, 8), "float32", data=(rng.standard_normal((6, 8)) * 0.5).astype(np.float32))
    b1 = b.tensor("b1", (6,), "float32", data=(rng.standard_normal(6) * 0.1).astype(np.float32))
    h = b.tensor("h", (1, 6), "float32")
    w2 = b.tensor("w2", (4, 6), "float32", data=(rng.standard_normal((4, 6)) * 0.5).astype(np.float32))
    b2 = b.tensor("b2", (4,), "float32", data=(rng.standard_normal(4) * 0.1).astype(np.float32))
    z = b.tensor("z", (1, 4), "float32")
    y = b.tensor("y", (1, 4), "float32")
    b.op("FULLY_CONNECTED", [x, w1, b1], [h], activation="RELU")
    b.op("FULLY_CONNECTED", [h, w2, b2], [z])
    b.op("LOGISTIC", [z], [y])
    path.write_bytes(b.inputs(x).outputs(y).build())
    np.save(path.with_suffix(".npy"), rng.standard_normal((32, 1, 8)).astype(np.float32))
    return path, path.with_suffix(".npy")


def test_cli_int16_flag(tmp_path, capsys):
    model, calibration = float_tflite(tmp_path / "net.tflite")
    out = tmp_path / "out"
    code = main(["compile", str(model), "-o", str(out), "--quantize", "int8", "--calibration", str(calibration),
                 "--int16", "nn.dense"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "int16 activations in 2 layers" in err
    source = (out / "net.c").read_text()
    assert "mr_dense_s16_wide(" in source and "mr_dense_s8" not in source
    assert "mr_quantize_f32_s16(" in source and "mr_quantize_s16_s8(" in source and "mr_sigmoid_s8(" in source


def test_cli_int16_sigmoid(tmp_path, capsys):
    """LOGISTIC in int16 reads the dense's int8 output requantized to int16 and writes (2^-15, 0)."""
    model, calibration = float_tflite(tmp_path / "net.tflite")
    out = tmp_path / "out"
    code = main(["compile", str(model), "-o", str(out), "--quantize", "int8", "--calibration", str(calibration),
                 "--int16", "sigmoid"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "int16 activations in 1 layer" in err
    source = (out / "net.c").read_text()
    assert "mr_sigmoid_s16(" in source and "mr_quantize_s8_s16(" in source and "mr_dense_s8" in source
    code = main(["compile", str(model), "-o", str(out), "--int16", "nn.dense"])
    assert code == 2 and "--int16 needs --quantize int8" in capsys.readouterr().err
