"""The text form prints and parses back to an equal graph (tensors, types, constants, nodes, names)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import SHARED_MODELS
from micro_relay.errors import CompileError
from micro_relay.frontend import load_model
from micro_relay.ir.text import parse_graph, print_graph

SMALL_MLP = """
def @main(%x: Tensor[(1, 4), int8, quant(0.5, -3)]) -> (%y) {
  %w = constant(Tensor[(2, 4), int8, quant(axis=0, [0.1, 0.2], [0, 0])], "AQIDBAUGBwg=")
  %"dense/bias:0" = constant(Tensor[(2,), int32], "AQAAAAIAAAA=")
  %y: Tensor[(1, 2), int8, quant(0.25, 1)] = nn.dense(%x, %w, %"dense/bias:0", activation="relu", output_shape=[1, 2])  # fc1
  return (%y)
}
"""


def assert_graphs_equal(a, b):
    assert a.inputs == b.inputs and a.outputs == b.outputs
    assert sorted(a.tensors) == sorted(b.tensors)
    for name in a.tensors:
        ta, tb = a.tensors[name], b.tensors[name]
        assert ta.type == tb.type, name
        assert ta.is_constant == tb.is_constant, name
        if ta.is_constant:
            np.testing.assert_array_equal(ta.data, tb.data)
            assert ta.data.dtype == tb.data.dtype
    assert [(n.op, n.inputs, n.outputs, dict(n.attrs), n.name) for n in a.nodes] == \
        [(n.op, n.inputs, n.outputs, dict(n.attrs), n.name) for n in b.nodes]


def test_hand_written_graph_parses_with_types_constants_and_names():
    graph = parse_graph(SMALL_MLP)
    assert graph.inputs == ("x",) and graph.outputs == ("y",)
    assert graph.type_of("w").quant.axis == 0 and graph.type_of("w").quant.scales == (0.1, 0.2)
    np.testing.assert_array_equal(graph.constant("w"), np.arange(1, 9, dtype=np.int8).reshape(2, 4))
    np.testing.assert_array_equal(graph.constant("dense/bias:0"), [1, 2])
    node = graph.nodes[0]
    assert (node.op, node.inputs, node.name) == ("nn.dense", ("x", "w", "dense/bias:0"), "fc1")
    assert node.attrs["output_shape"] == (1, 2)


def test_print_parse_print_is_a_fixed_point():
    text = print_graph(parse_graph(SMALL_MLP))
    assert print_graph(parse_graph(text)) == text


def test_absent_optional_input_round_trips():
    text = SMALL_MLP.replace('%"dense/bias:0", activation', "_, activation")
    graph = parse_graph(text)
    assert graph.nodes[0].inputs[2] == ""
    assert_graphs_equal(graph, parse_graph(print_graph(graph)))


def test_elided_constants_refuse_to_parse():
    text = print_graph(parse_graph(SMALL_MLP), elide_data=True)
    assert "..." in text
    with pytest.raises(CompileError, match="elided"):
        parse_graph(text)


def test_syntax_error_names_the_line():
    with pytest.raises(CompileError, match="text line 3"):
        parse_graph(SMALL_MLP.replace("constant(Tensor", "constant(Tensr", 1))


def test_use_before_definition_is_rejected():
    text = SMALL_MLP.replace("%y: Tensor[(1, 2), int8, quant(0.25, 1)] = nn.dense(%x,", "%y: Tensor[(1, 2), int8, quant(0.25, 1)] = nn.dense(%z,")
    with pytest.raises(CompileError, match="'z' is used before it is defined"):
        parse_graph(text)


MODELS = sorted(p for p in SHARED_MODELS.glob("*/*.tflite") if "lstm" not in p.name) if SHARED_MODELS.is_dir() else []


@pytest.mark.skipif(not MODELS, reason=f"reference models are absent from {SHARED_MODELS}")
@pytest.mark.parametrize("model", MODELS, ids=[p.stem for p in MODELS])
def test_every_shared_model_round_trips_through_text(model):
    graph = load_model(model)
    assert_graphs_equal(graph, parse_graph(print_graph(graph)))
