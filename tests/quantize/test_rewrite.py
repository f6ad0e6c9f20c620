"""The rewrite on every named graph shape (graphs.py): the int8 graph verifies, follows the TFLite integer
scheme the kernels require, stays close to the float graph (SQNR at every output), and its compiled C is
bit-exact with the reference interpreter. Then I/O types, ops kept in float, purity and refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from micro_relay.errors import CompileError
from micro_relay.ir.text import print_graph
from micro_relay.ir.types import DType, Quant
from micro_relay.quantize import QuantizeOptions, quantize_graph, quantize_with_report

from .graphs import SHAPES, Builder, linear, residual, samples
from .support import assert_c_matches_reference, split

OPTIONS = {
    "default": QuantizeOptions(),
    "per_tensor_int8_io": QuantizeOptions(per_channel=False, int8_io=True),
    "percentile": QuantizeOptions(method="percentile", percentile=99.9),
    "mse": QuantizeOptions(method="mse"),
}
MIN_OUTPUT_SQNR_DB = 25.0  # int8 on these small well-scaled graphs lands at 33-41 dB


def quantized(shape: str, options: QuantizeOptions):
    make, scale = SHAPES[shape]
    graph = make()
    q, report = quantize_with_report(graph, samples(graph, 48, seed=0, scale=scale), options)
    return graph, q, report, scale


@pytest.mark.parametrize("option", OPTIONS)
@pytest.mark.parametrize("shape", SHAPES)
def test_shape_quantizes_close_to_float(shape, option):
    graph, q, report, _ = quantized(shape, OPTIONS[option])
    for name, sqnr in report.outputs:
        assert sqnr > MIN_OUTPUT_SQNR_DB, f"{shape}/{option}: output {name} SQNR {sqnr:.1f} dB"
    int8_io = OPTIONS[option].int8_io
    for name in (*q.inputs, *q.outputs):
        assert q.type_of(name).dtype == (DType.INT8 if int8_io else DType.FLOAT32)
        assert q.type_of(name).shape == graph.type_of(name).shape
    from_float = [n for n in q.nodes if n.op == "qnn.quantize" and q.type_of(n.inputs[0]).dtype.is_float]
    to_float = [n for n in q.nodes if n.op == "qnn.dequantize"]
    assert (len(from_float), len(to_float)) == ((0, 0) if int8_io else (len(q.inputs), len(q.outputs)))
    for node in q.nodes:
        if node.op in ("nn.conv2d", "nn.depthwise_conv2d", "nn.dense"):
            w, b = q.type_of(node.inputs[1]), q.type_of(node.inputs[2])
            assert w.dtype == DType.INT8 and set(w.quant.zero_points) == {0}
            assert len(w.quant.scales) == (w.shape[3 if node.op == "nn.depthwise_conv2d" else 0]
                                           if OPTIONS[option].per_channel else 1)
            assert np.abs(q.constant(node.inputs[1]).astype(int)).max() == 127  # symmetric, full range used
            assert b.dtype == DType.INT32
            in_scale = q.type_of(node.inputs[0]).quant.scale
            np.testing.assert_allclose(b.quant.scales, np.float32(in_scale) * np.float32(w.quant.scales), rtol=1e-6)


@pytest.mark.parametrize("shape", SHAPES)
def test_compiled_c_is_bit_exact_with_reference(shape, tmp_path):
    _, q, _, scale = quantized(shape, OPTIONS["default"])
    held_out = split(samples(q, 16, seed=7, scale=scale), q)
    assert_c_matches_reference(q, held_out, tmp_path)


def test_int8_io_c_and_header(tmp_path):
    """int8 inputs and outputs carry their quantization into the header's SCALE / ZERO_POINT macros."""
    _, q, _, _ = quantized("residual", OPTIONS["per_tensor_int8_io"])
    qx = q.type_of("x").quant
    rng = np.random.default_rng(3)
    held_out = [[rng.integers(-128, 128, q.type_of("x").shape).astype(np.int8)] for _ in range(8)]
    assert_c_matches_reference(q, held_out, tmp_path)
    header = (tmp_path / "model.h").read_text()
    assert f"#define MODEL_INPUT0_ZERO_POINT {qx.zero_point}" in header
    assert "#define MODEL_INPUT0_SCALE" in header and "#define MODEL_OUTPUT0_ZERO_POINT" in header


def test_fixed_and_equal_output_quantization():
    """softmax/sigmoid (1/256, -128), tanh (1/128, 0); pooling, pad, reshape, slice and relu6 keep their
    input's; concatenate's inputs are requantized to its output's quantization; relu outputs start at -128."""
    checks = 0
    for shape in SHAPES:
        _, q, _, _ = quantized(shape, OPTIONS["default"])
        for node in q.nodes:
            out = q.type_of(node.outputs[0]).quant
            ins = [q.type_of(n).quant for n in node.inputs if n]
            if node.op in ("nn.softmax", "sigmoid"):
                assert out == Quant.tensor(1 / 256, -128)
            elif node.op == "tanh":
                assert out == Quant.tensor(1 / 128, 0)
            elif node.op in ("nn.max_pool2d", "nn.avg_pool2d", "nn.pad", "reshape", "strided_slice", "concatenate",
                             "transpose", "nn.relu6"):
                assert all(i == out for i in ins), node.label
            elif node.attrs.get("activation") == "relu" or node.op == "nn.relu":
                assert out.zero_point == -128
            else:
                continue
            checks += 1
    assert checks >= 16


def test_pass_is_pure():
    graph = residual()
    text = print_graph(graph)
    quantize_graph(graph, samples(graph, 8, seed=0))
    assert print_graph(graph) == text


def test_keep_float_puts_dequantize_before_and_quantize_after(tmp_path):
    """linear with softmax kept in float: ... dense ─ dequantize ─ softmax(float) ─► probs (float)."""
    graph = linear()
    q = quantize_graph(graph, samples(graph, 32, seed=0), QuantizeOptions(keep_float=("softmax",)))
    ops = [n.op for n in q.nodes]
    assert ops == ["qnn.quantize", "nn.dense", "nn.dense", "qnn.dequantize", "nn.softmax"]
    assert q.type_of("probs").dtype == DType.FLOAT32
    held_out = split(samples(q, 8, seed=9), q)
    assert_c_matches_reference(q, held_out, tmp_path)

    q = quantize_graph(graph, samples(graph, 8, seed=0), QuantizeOptions(keep_float=("nn.softmax",), int8_io=True))
    assert [n.op for n in q.nodes][-2:] == ["nn.softmax", "qnn.quantize"]
    assert q.type_of("probs").dtype == DType.INT8


def test_keep_float_of_unknown_op_is_refused():
    graph = linear()
    with pytest.raises(CompileError, match="--keep-float 'nn.conv2d' matches no op"):
        quantize_graph(graph, samples(graph, 4, seed=0), QuantizeOptions(keep_float=("nn.conv2d",)))


def test_op_without_int8_kernel_is_named_in_one_line(monkeypatch):
    """An op with no int8 rule is refused, naming it, unless kept in float; then it runs in float."""
    from micro_relay.quantize import rules

    monkeypatch.delitem(rules.RULES, "tanh")
    monkeypatch.delitem(rules.RULES, "sigmoid")
    graph = SHAPES["activations"][0]()
    with pytest.raises(CompileError) as info:
        quantize_graph(graph, samples(graph, 4, seed=0))
    message = str(info.value)
    assert "\n" not in message
    assert "no int8 kernel for ops sigmoid, tanh" in message and "--keep-float sigmoid --keep-float tanh" in message
    q = quantize_graph(graph, samples(graph, 16, seed=0), QuantizeOptions(keep_float=("sigmoid", "tanh")))
    assert {n.op: q.type_of(n.outputs[0]).dtype for n in q.nodes}["tanh"] == DType.FLOAT32


def test_already_quantized_graph_is_refused():
    _, q, _, _ = quantized("linear", OPTIONS["default"])
    with pytest.raises(CompileError, match="model is already quantized"):
        quantize_graph(q, samples(q, 4, seed=0))


def test_report_counts_bytes_and_layers():
    graph, q, report, _ = quantized("residual", OPTIONS["default"])
    assert [layer.op for layer in report.layers] == ["nn.conv2d", "nn.conv2d", "add", "nn.avg_pool2d"]
    weights = sum(t.type.nbytes for t in graph.tensors.values() if t.is_constant)
    assert report.weight_bytes_float == weights
    assert report.weight_bytes_int8 == sum(t.type.nbytes for t in q.tensors.values() if t.is_constant)
    assert report.arena_bytes_int8 < report.arena_bytes_float
    assert all(math.isfinite(layer.sqnr_db) and layer.sqnr_db > 25 for layer in report.layers)
    text = report.format()
    assert "SQNR" in text and "weights 3520 B float" in text


def test_output_also_read_by_a_float_op_is_converted_once(tmp_path):
    """linear with both logits and probs as outputs and softmax kept in float: logits/int8 is dequantized
    once, into 'logits', which the float softmax reads too."""
    graph = linear()
    graph = type(graph)(graph.tensors, graph.nodes, graph.inputs, ("logits", "probs"))
    q = quantize_graph(graph, samples(graph, 16, seed=0), QuantizeOptions(keep_float=("nn.softmax",)))
    assert [(n.op, n.inputs[0], n.outputs[0]) for n in q.nodes][-3:] == [
        ("nn.dense", "hidden", "logits/int8"), ("qnn.dequantize", "logits/int8", "logits"),
        ("nn.softmax", "logits", "probs")]
    q = quantize_graph(graph, samples(graph, 16, seed=0), QuantizeOptions(keep_float=("nn.softmax",), int8_io=True))
    assert [n.op for n in q.nodes][-3:] == ["qnn.dequantize", "nn.softmax", "qnn.quantize"]
    assert q.type_of("logits").dtype == q.type_of("probs").dtype == DType.INT8
    assert_c_matches_reference(q, [[np.zeros((1, 16), np.int8)], [np.full((1, 16), 50, np.int8)]], tmp_path)


def test_runtime_weight_is_refused_unless_kept_in_float():
    """x[1,4] ─ dense(w: a graph input) ─► y: int8 dense needs its weight at compile time."""
    b = Builder()
    x, w = b.input("x", (1, 4)), b.input("w", (2, 4))
    graph = b.graph(b.op("nn.dense", (x, w, ""), "y", output_shape=(1, 2)))
    data = {"x": np.ones((2, 1, 4), np.float32), "w": np.ones((2, 2, 4), np.float32)}
    with pytest.raises(CompileError, match="int8 nn.dense needs a constant weight and bias; to keep it in float"):
        quantize_graph(graph, data)
    q = quantize_graph(graph, data, QuantizeOptions(keep_float=("nn.dense",)))
    assert [n.op for n in q.nodes] == ["nn.dense"]  # nothing left to quantize: the float graph as it was
