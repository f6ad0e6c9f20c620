"""The passes the ONNX/PyTorch path relies on, on small named graphs in the text form: channel-affine
folding, QDQ lowering and flatten-transpose folding. Each is pure and keeps the outputs (the float ones
within rounding; QDQ lowering within one output step, as integer kernels round where float ones did not)."""

from __future__ import annotations

import numpy as np
from passes.test_passes import b64

from micro_relay.ir.text import parse_graph, print_graph
from micro_relay.ir.verify import verify
from micro_relay.passes.dead_code import eliminate_dead_code
from micro_relay.passes.fold_channel_affine import fold_channel_affine
from micro_relay.passes.fold_flatten_transpose import fold_flatten_transpose
from micro_relay.passes.lower_qdq import lower_qdq
from micro_relay.reference import run

RNG = np.random.default_rng(5)
W_CONV = RNG.standard_normal((4, 3, 3, 2)).astype(np.float32)
SCALE = np.array([0.5, 2.0, -1.0, 3.0], np.float32)
SHIFT = np.array([0.1, -0.2, 0.3, 0.0], np.float32)


def _close(before, after, x, atol=1e-5):
    for a, b in zip(run(before, [x]), run(after, [x])):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=atol)


def test_batch_norm_after_biased_conv_folds_into_it():
    """x ─ conv(w, b) ─ multiply(scale) ─ add(shift) ─► y   becomes   x ─ conv(w*scale, b*scale+shift) ─► y"""
    graph = verify(parse_graph(f"""
def @main(%x: Tensor[(1, 5, 5, 2), float32]) -> (%y) {{
  %w = constant(Tensor[(4, 3, 3, 2), float32], "{b64(W_CONV)}")
  %b = constant(Tensor[(4,), float32], "{b64(SHIFT[::-1].copy())}")
  %s = constant(Tensor[(4,), float32], "{b64(SCALE)}")
  %t = constant(Tensor[(4,), float32], "{b64(SHIFT)}")
  %c: Tensor[(1, 3, 3, 4), float32] = nn.conv2d(%x, %w, %b)
  %m: Tensor[(1, 3, 3, 4), float32] = multiply(%c, %s)
  %y: Tensor[(1, 3, 3, 4), float32] = add(%t, %m)
  return (%y)
}}"""))
    text = print_graph(graph)
    folded = verify(fold_channel_affine(graph))
    assert [n.op for n in folded.nodes] == ["nn.conv2d"] and folded.nodes[0].outputs == ("y",)
    assert print_graph(graph) == text
    _close(graph, folded, RNG.standard_normal((1, 5, 5, 2)).astype(np.float32))


def test_affine_with_a_second_reader_is_left_alone():
    """x ─ conv ─┬ add(t) ─► y
                 └────────► c (output)"""
    graph = verify(parse_graph(f"""
def @main(%x: Tensor[(1, 5, 5, 2), float32]) -> (%y, %c) {{
  %w = constant(Tensor[(4, 3, 3, 2), float32], "{b64(W_CONV)}")
  %t = constant(Tensor[(4,), float32], "{b64(SHIFT)}")
  %c: Tensor[(1, 3, 3, 4), float32] = nn.conv2d(%x, %w, _)
  %y: Tensor[(1, 3, 3, 4), float32] = add(%c, %t)
  return (%y, %c)
}}"""))
    assert [n.op for n in fold_channel_affine(graph).nodes] == ["nn.conv2d", "add"]


W_Q = RNG.integers(-127, 128, (3, 4)).astype(np.int8)
BIAS_Q = RNG.integers(-500, 500, 3).astype(np.int32)


def _qdq_dense_float(x: np.ndarray) -> np.ndarray:
    """What the QDQ graph means, computed in float64 with numpy (ONNX semantics, round half to even)."""
    xq = np.clip(np.round(x / 0.05) + 3, -128, 127)
    xf = (xq - 3) * 0.05
    d = xf @ (W_Q * np.array([0.01, 0.02, 0.015])[:, None]).T + BIAS_Q * np.array([0.0005, 0.001, 0.00075])
    return (np.clip(np.round(d / 0.04) - 5, -128, 127) + 5) * 0.04


def _qdq_dense_graph(relu: bool) -> str:
    w, bias = W_Q, BIAS_Q
    act = "\n  %r: Tensor[(1, 3), float32] = nn.relu(%d)" if relu else ""
    src = "%r" if relu else "%d"
    return f"""
def @main(%x: Tensor[(1, 4), float32]) -> (%y) {{
  %w = constant(Tensor[(3, 4), int8, quant(axis=0, [0.01, 0.02, 0.015], [0, 0, 0])], "{b64(w)}")
  %b = constant(Tensor[(3,), int32, quant(axis=0, [0.0005, 0.001, 0.00075], [0, 0, 0])], "{b64(bias)}")
  %xq: Tensor[(1, 4), int8, quant(0.05, 3)] = qnn.quantize(%x)
  %xf: Tensor[(1, 4), float32] = qnn.dequantize(%xq)
  %wf: Tensor[(3, 4), float32] = qnn.dequantize(%w)
  %bf: Tensor[(3,), float32] = qnn.dequantize(%b)
  %d: Tensor[(1, 3), float32] = nn.dense(%xf, %wf, %bf, output_shape=[1, 3]){act}
  %dq: Tensor[(1, 3), int8, quant(0.04, -5)] = qnn.quantize({src})
  %y: Tensor[(1, 3), float32] = qnn.dequantize(%dq)
  return (%y)
}}"""


def test_qdq_dense_becomes_an_integer_dense():
    """x ─ Q ─ DQ ─ dense(DQ(w), DQ(b)) ─ Q ─ DQ ─► y   becomes   x ─ Q ─ dense_int8(w, b) ─ DQ ─► y"""
    graph = verify(parse_graph(_qdq_dense_graph(relu=False)))
    text = print_graph(graph)
    lowered = verify(eliminate_dead_code(lower_qdq(graph)))  # as in the pipeline: drop bypassed dequantizes
    assert print_graph(graph) == text
    assert [n.op for n in lowered.nodes] == ["qnn.quantize", "nn.dense", "qnn.dequantize"]
    dense = next(n for n in lowered.nodes if n.op == "nn.dense")
    assert [lowered.type_of(n).dtype.value for n in dense.inputs] == ["int8", "int8", "int32"]
    assert dense.outputs == ("dq",)
    for x in RNG.standard_normal((20, 1, 4)).astype(np.float32):
        (got,) = run(lowered, [x])
        assert np.max(np.abs(got - _qdq_dense_float(x))) <= 0.04 * 1.001


def test_relu_between_op_and_quantize_becomes_the_fused_activation():
    graph = verify(parse_graph(_qdq_dense_graph(relu=True)))
    lowered = verify(lower_qdq(graph))
    dense = next(n for n in lowered.nodes if n.op == "nn.dense")
    assert dense.attrs["activation"] == "relu"
    assert not any(n.op == "nn.relu" for n in lowered.nodes)


def test_flatten_of_a_transposed_map_permutes_the_dense_weights():
    """x(NHWC) ─ transpose(NCHW) ─ reshape(1, 12) ─ dense ─► y   becomes   x ─ reshape ─ dense(W') ─► y"""
    w = RNG.standard_normal((5, 12)).astype(np.float32)
    graph = verify(parse_graph(f"""
def @main(%x: Tensor[(1, 2, 2, 3), float32]) -> (%y) {{
  %w = constant(Tensor[(5, 12), float32], "{b64(w)}")
  %t: Tensor[(1, 3, 2, 2), float32] = transpose(%x, axes=[0, 3, 1, 2])
  %f: Tensor[(1, 12), float32] = reshape(%t, newshape=[1, 12])
  %y: Tensor[(1, 5), float32] = nn.dense(%f, %w, _, output_shape=[1, 5])
  return (%y)
}}"""))
    folded = verify(fold_flatten_transpose(graph))
    assert [n.op for n in folded.nodes] == ["reshape", "nn.dense"]
    _close(graph, folded, RNG.standard_normal((1, 2, 2, 3)).astype(np.float32))
