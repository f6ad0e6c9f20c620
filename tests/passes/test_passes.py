"""Each pass on small named graphs written in the text form: what it changes, and that it is pure (the
input graph is left as it was) and keeps the graph's outputs equal under the reference interpreter."""

from __future__ import annotations

import numpy as np

from micro_relay.ir.text import parse_graph, print_graph
from micro_relay.ir.verify import verify
from micro_relay.passes.dead_code import eliminate_dead_code
from micro_relay.passes.dequantize_hybrid_weights import dequantize_hybrid_weights
from micro_relay.passes.fold_constants import fold_constants
from micro_relay.passes.fuse_activation import fuse_activation
from micro_relay.passes.merge_reshapes import merge_reshapes
from micro_relay.reference import run


def b64(array: np.ndarray) -> str:
    import base64

    return base64.b64encode(np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()).decode()


W = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
W2 = np.arange(4, dtype=np.float32).reshape(2, 2) - 1.5


def assert_same_outputs(before, after, inputs):
    for a, b in zip(run(before, inputs), run(after, inputs)):
        np.testing.assert_array_equal(a, b)


def test_dead_code_drops_unreachable_branch():
    """x ─ dense ─► y (output)
         └ dense ─► unused"""
    graph = verify(parse_graph(f"""
def @main(%x: Tensor[(1, 4), float32]) -> (%y) {{
  %w = constant(Tensor[(2, 4), float32], "{b64(W)}")
  %y: Tensor[(1, 2), float32] = nn.dense(%x, %w, _, output_shape=[1, 2])
  %unused: Tensor[(1, 2), float32] = nn.dense(%x, %w, _, output_shape=[1, 2])
  return (%y)
}}"""))
    text = print_graph(graph)
    result = eliminate_dead_code(graph)
    assert [n.outputs for n in result.nodes] == [("y",)]
    assert "unused" not in result.tensors
    assert print_graph(graph) == text  # pure


def test_fold_constants_evaluates_constant_subgraph():
    """c ─ dense(w2) ─► folded (constant) ; x ─ dense(w) ─► y"""
    c = np.array([[1.0, -2.0]], dtype=np.float32)
    graph = verify(parse_graph(f"""
def @main(%x: Tensor[(1, 4), float32]) -> (%y, %folded) {{
  %w = constant(Tensor[(2, 4), float32], "{b64(W)}")
  %w2 = constant(Tensor[(2, 2), float32], "{b64(W2)}")
  %c = constant(Tensor[(1, 2), float32], "{b64(c)}")
  %y: Tensor[(1, 2), float32] = nn.dense(%x, %w, _, output_shape=[1, 2])
  %folded: Tensor[(1, 2), float32] = nn.dense(%c, %w2, _, output_shape=[1, 2])
  return (%y, %folded)
}}"""))
    result = verify(fold_constants(graph))
    assert [n.outputs for n in result.nodes] == [("y",)]
    np.testing.assert_array_equal(result.constant("folded"), c @ W2.T)
    assert_same_outputs(graph, result, [np.ones((1, 4), np.float32)])


def test_fuse_relu_into_producer():
    """x ─ dense ─► h ─ relu ─► y   becomes   x ─ dense(activation=relu) ─► y"""
    graph = verify(parse_graph(f"""
def @main(%x: Tensor[(1, 4), float32]) -> (%y) {{
  %w = constant(Tensor[(2, 4), float32], "{b64(W - 0.4)}")
  %h: Tensor[(1, 2), float32] = nn.dense(%x, %w, _, output_shape=[1, 2])
  %y: Tensor[(1, 2), float32] = nn.relu(%h)
  return (%y)
}}"""))
    result = verify(fuse_activation(graph))
    assert [(n.op, n.attrs["activation"], n.outputs) for n in result.nodes] == [("nn.dense", "relu", ("y",))]
    assert_same_outputs(graph, result, [np.array([[1, -2, 3, -4]], np.float32)])


def test_relu_with_a_second_reader_of_its_input_is_not_fused():
    """x ─ dense ─► h ─ relu ─► y ; h is also an output"""
    graph = verify(parse_graph(f"""
def @main(%x: Tensor[(1, 4), float32]) -> (%y, %h) {{
  %w = constant(Tensor[(2, 4), float32], "{b64(W)}")
  %h: Tensor[(1, 2), float32] = nn.dense(%x, %w, _, output_shape=[1, 2])
  %y: Tensor[(1, 2), float32] = nn.relu(%h)
  return (%y, %h)
}}"""))
    assert fuse_activation(graph).nodes == graph.nodes


def test_reshape_chain_becomes_one_alias():
    """x ─ reshape ─► a ─ reshape ─► b ─ dense ─► y"""
    graph = verify(parse_graph(f"""
def @main(%x: Tensor[(1, 2, 2), float32]) -> (%y) {{
  %w = constant(Tensor[(2, 4), float32], "{b64(W)}")
  %a: Tensor[(4, 1), float32] = reshape(%x, newshape=[4, 1])
  %b: Tensor[(1, 4), float32] = reshape(%a, newshape=[1, 4])
  %y: Tensor[(1, 2), float32] = nn.dense(%b, %w, _, output_shape=[1, 2])
  return (%y)
}}"""))
    result = verify(merge_reshapes(graph))
    assert [(n.op, n.inputs) for n in result.nodes] == [("reshape", ("x",)), ("nn.dense", ("b", "w", ""))]
    assert_same_outputs(graph, result, [np.arange(4, dtype=np.float32).reshape(1, 2, 2)])


def test_hybrid_weights_are_dequantized_at_compile_time():
    """float x ─ dense(int8 w, per-channel) ─► y   becomes   dense(float w)"""
    q = np.array([[1, -2, 3, 127], [-128, 0, 5, 7]], dtype=np.int8)
    graph = verify(parse_graph(f"""
def @main(%x: Tensor[(1, 4), float32]) -> (%y) {{
  %w = constant(Tensor[(2, 4), int8, quant(axis=0, [0.5, 0.25], [0, 1])], "{b64(q)}")
  %y: Tensor[(1, 2), float32] = nn.dense(%x, %w, _, output_shape=[1, 2])
  return (%y)
}}"""))
    result = verify(dequantize_hybrid_weights(graph))
    weight = result.constant(result.nodes[0].inputs[1])
    expected = np.array([[0.5, -1.0, 1.5, 63.5], [-32.25, -0.25, 1.0, 1.5]], dtype=np.float32)  # by hand
    np.testing.assert_array_equal(weight, expected)
    x = np.array([[1, 2, 3, 4]], np.float32)
    np.testing.assert_allclose(run(result, [x])[0], x @ expected.T, rtol=1e-6)
