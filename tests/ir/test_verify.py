"""The verifier rejects graphs outside the Micro Relay subset and names the node, op and tensor."""

from __future__ import annotations

import pytest

from micro_relay.errors import CompileError
from micro_relay.ir.text import parse_graph
from micro_relay.ir.verify import verify

HEADER = 'def @main(%x: Tensor[(1, 4), float32]) -> (%y) {\n  %w = constant(Tensor[(2, 4), float32], "' + "A" * 43 + '=")\n'


def graph(body: str):
    return parse_graph(HEADER + body + "\n  return (%y)\n}\n")


def test_valid_dense_verifies():
    g = graph('  %y: Tensor[(1, 2), float32] = nn.dense(%x, %w, _, output_shape=[1, 2])')
    assert verify(g) is g


@pytest.mark.parametrize(
    "body, message",
    [
        ('  %y: Tensor[(1, 2), float32] = nn.conv9d(%x, %w, _)', r"unknown op 'nn.conv9d' \(node 0 nn.conv9d, tensor 'y'\)"),
        ('  %y: Tensor[(1, 2), float32] = nn.dense(%x, %w, _)', r"needs attribute 'output_shape' \(node 0"),
        ('  %y: Tensor[(1, 2), float32] = nn.dense(%x, %w, _, output_shape=[1, 2], loop=True)', "has no attribute 'loop'"),
        ('  %y: Tensor[(1, 2), float32] = nn.dense(%x, %w, _, output_shape=[1, 2], activation="gelu")', "must be one of"),
        ('  %y: Tensor[(1, 3), float32] = nn.dense(%x, %w, _, output_shape=[1, 3])', "does not hold"),
        ('  %y: Tensor[(1, 2), int8] = nn.dense(%x, %w, _, output_shape=[1, 2])', r"output type int8\[1, 2\] differs from inferred float32\[1, 2\]"),
        ('  %y: Tensor[(1, 2), float32] = nn.dense(%x, output_shape=[1, 2])', "takes 2..3 inputs"),
        ('  %y: Tensor[(1, 2), float32] = nn.dense(%x, _, output_shape=[1, 2])', "needs input 1, which is absent"),
    ],
    ids=["unknown-op", "missing-attr", "unknown-attr", "bad-choice", "bad-shape", "bad-dtype", "arity", "absent-required"],
)
def test_invalid_graph_is_rejected_with_location(body, message):
    with pytest.raises(CompileError, match=message):
        verify(graph(body))


def test_tensor_written_twice_is_rejected():
    g = graph('  %y: Tensor[(1, 2), float32] = nn.dense(%x, %w, _, output_shape=[1, 2])\n'
              '  %y: Tensor[(1, 2), float32] = nn.dense(%x, %w, _, output_shape=[1, 2])')
    with pytest.raises(CompileError, match="written twice"):
        verify(g)


def test_zero_sized_dimension_is_rejected():
    g = parse_graph('def @main(%x: Tensor[(0, 4), float32]) -> (%x) {\n  return (%x)\n}\n')
    with pytest.raises(CompileError, match=r"static positive size.*tensor 'x'"):
        verify(g)


def test_graph_output_never_written_is_rejected():
    g = parse_graph('def @main(%x: Tensor[(1, 4), float32]) -> (%q) {\n  return (%q)\n}\n')
    with pytest.raises((CompileError, KeyError)):
        verify(g)
