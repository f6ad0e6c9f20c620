"""Buffers and lifetimes: when tensors share bytes (alias, in place) and when they must not."""

from __future__ import annotations

import numpy as np

from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.types import DType, TensorType
from micro_relay.plan.buffers import build_buffers, lower_bound, tensor_lifetimes

from . import shapes
from .graphs import ALIAS, BINARY, INPLACE_BINARY, INPLACE_UNARY, LAGGED, UNARY, Builder


def groups(graph, order=None) -> set[tuple[str, ...]]:
    order = tuple(range(len(graph.nodes))) if order is None else order
    return {b.tensors for b in build_buffers(graph, order, {})}


def test_lifetimes_of_a_chain():
    """in ─► u0 ─► a ─► u1 ─► b ─► u2 ─► out: each tensor from its writer to its last reader."""
    assert tensor_lifetimes(shapes.linear_chain(), (0, 1, 2)) == {
        "in": (0, 0), "a": (0, 1), "b": (1, 2), "out": (2, 2)}


def test_unread_input_and_unread_result_live_one_step():
    """
        in ─► u0 ─► a ─► u2 ─► out        in2 (a graph input nobody reads)
         └──► u1 ─► dead (nobody reads it, not an output)
    in2 lives at step 0 only, dead at its writer's step (1) only.
    """
    b = Builder()
    x = b.input("in", 100)
    b.input("in2", 50)
    a = b.node(UNARY, [x], "a", 200)
    b.node(UNARY, [x], "dead", 300)
    g = b.graph(b.node(UNARY, [a], "out", 100))
    life = tensor_lifetimes(g, (0, 1, 2))
    assert life["in2"] == (0, 0) and life["dead"] == (1, 1) and life["a"] == (0, 2) and life["in"] == (0, 1)
    # step 0: in+in2+a = 100+52+200, step 1: in+a+dead = 600, step 2: a+out = 300 (sizes rounded to 4)
    assert lower_bound(build_buffers(g, (0, 1, 2), {})) == 600


def test_inplace_refused_when_input_is_read_later():
    """
        in ─► u0 ─► a ─► ip ─► b ─► bin ─► out
                    └────────────────►┘
    a is read again by bin (step 2) after ip (step 1): ip must not overwrite it.
    """
    b = Builder()
    a = b.node(UNARY, [b.input("in", 100)], "a", 1000)
    m = b.node(INPLACE_UNARY, [a], "b", 1000)
    g = b.graph(b.node(BINARY, [m, a], "out", 100))
    assert groups(g) == {("in",), ("a",), ("b",), ("out",)}


def test_inplace_refused_when_an_alias_is_read_later():
    """
        in ─► u0 ─► a ─► ip ─► b ─► bin ─► out
                    └─► r ─► ra ─────►┘
    ra is a's bytes (reshape) and is read after ip: a's buffer is not dead at ip.
    """
    b = Builder()
    a = b.node(UNARY, [b.input("in", 100)], "a", 1000)
    ra = b.node(ALIAS, [a], "ra", 1000)
    m = b.node(INPLACE_UNARY, [a], "b", 1000)
    g = b.graph(b.node(BINARY, [m, ra], "out", 100))
    assert groups(g) == {("in",), ("a", "ra"), ("b",), ("out",)}


def test_inplace_allowed_when_the_alias_was_read_before():
    """
        in ─► u0 ─► a ─► r ─► ra ─► u1 ─► c ─┐
                    └──────────► ip ─► b ─► bin ─► out
    Order u0, r, u1, ip, bin: ra's last reader (u1) runs before ip, so a+ra die at ip and b takes them.
    """
    b = Builder()
    a = b.node(UNARY, [b.input("in", 100)], "a", 1000)
    ra = b.node(ALIAS, [a], "ra", 1000)
    c = b.node(UNARY, [ra], "c", 100)
    m = b.node(INPLACE_UNARY, [a], "b", 1000)
    g = b.graph(b.node(BINARY, [m, c], "out", 100))
    assert groups(g) == {("in",), ("a", "ra", "b"), ("c",), ("out",)}


def test_inplace_refused_when_sizes_differ():
    """in ─► u0 ─► a(1000) ─► ip ─► b(500) ─► u1 ─► out: b is smaller than a, so it gets its own bytes."""
    b = Builder()
    a = b.node(UNARY, [b.input("in", 100)], "a", 1000)
    m = b.node(INPLACE_UNARY, [a], "b", 500)
    g = b.graph(b.node(UNARY, [m], "out", 100))
    assert groups(g) == {("in",), ("a",), ("b",), ("out",)}


def test_inplace_refused_when_element_counts_differ():
    """in: int16[4] (8 bytes) ─► ip ─► b: int8[8] (8 bytes): same bytes, but out[i] is not at in[i]'s place."""
    tensors = {
        "in": Tensor("in", TensorType((4,), DType.INT16)),
        "b": Tensor("b", TensorType((8,), DType.INT8)),
    }
    g = Graph(tensors, (Node(INPLACE_UNARY, ("in",), ("b",)),), ("in",), ("b",))
    assert groups(g) == {("in",), ("b",)}


def test_inplace_refused_when_input_is_a_graph_output():
    """in ─► u0 ─► a (output) ─► ip ─► b (output): a must survive to the end."""
    b = Builder()
    a = b.node(UNARY, [b.input("in", 100)], "a", 1000)
    g = b.graph(a, b.node(INPLACE_UNARY, [a], "b", 1000))
    assert groups(g) == {("in",), ("a",), ("b",)}


def test_inplace_refused_when_another_input_shares_the_buffer():
    """ip2(a, a) and ip2(a, ra) with ra = reshape(a): the kernel only promises out == input 0 is safe."""
    for second in ("a", "ra"):
        b = Builder()
        a = b.node(UNARY, [b.input("in", 100)], "a", 1000)
        ra = b.node(ALIAS, [a], "ra", 1000)
        g = b.graph(b.node(INPLACE_BINARY, [a, second], "out", 1000))
        assert groups(g) == {("in",), ("a", "ra"), ("out",)}, second


def test_inplace_over_a_graph_input():
    """in ─► ip ─► b ─► u0 ─► out: invoke may overwrite its input (refill it before each call)."""
    b = Builder()
    m = b.node(INPLACE_UNARY, [b.input("in", 1000)], "b", 1000)
    g = b.graph(b.node(UNARY, [m], "out", 100))
    assert groups(g) == {("in", "b"), ("out",)}


def test_inplace_and_alias_of_a_constant_get_their_own_bytes():
    """w (constant, in flash) ─► ip ─► b;  w ─► r ─► rw: neither may write into or alias flash."""
    tensors = {
        "w": Tensor("w", TensorType((8,), DType.INT8), np.zeros(8, np.int8)),
        "b": Tensor("b", TensorType((8,), DType.INT8)),
        "rw": Tensor("rw", TensorType((8,), DType.INT8)),
        "out": Tensor("out", TensorType((8,), DType.INT8)),
    }
    nodes = (Node(INPLACE_UNARY, ("w",), ("b",)), Node(ALIAS, ("w",), ("rw",)), Node(BINARY, ("b", "rw"), ("out",)))
    g = Graph(tensors, nodes, (), ("out",))
    assert groups(g) == {("b",), ("rw",), ("out",)}


def test_order_decides_inplace():
    """
        in ─► u0 ─► a ─► ip ─► b ─┐
                    └─► u1 ─► c ─► bin ─► out
    Nodes 0 u0, 1 ip, 2 u1, 3 bin. In the model order u1 still reads a after ip: no sharing. Running u1
    first (0, 2, 1, 3) makes ip a's last reader, and b takes a's bytes.
    """
    b = Builder()
    a = b.node(UNARY, [b.input("in", 100)], "a", 1000)
    m = b.node(INPLACE_UNARY, [a], "b", 1000)
    c = b.node(UNARY, [a], "c", 1000)
    g = b.graph(b.node(BINARY, [m, c], "out", 100))
    assert ("a", "b") not in groups(g, (0, 1, 2, 3))
    assert ("a", "b") in groups(g, (0, 2, 1, 3))


def test_size_rounding_and_alignment():
    """A 10-byte int8 tensor takes 12 bytes (4-byte multiples); an int64 tensor is 8-aligned."""
    tensors = {
        "in": Tensor("in", TensorType((10,), DType.INT8)),
        "wide": Tensor("wide", TensorType((3,), DType.INT64)),
    }
    g = Graph(tensors, (Node(UNARY, ("in",), ("wide",)),), ("in",), ("wide",))
    buffers = {b.name: (b.size, b.align) for b in build_buffers(g, (0,), {})}
    assert buffers == {"in": (12, 4), "wide": (24, 8)}


def test_scratch_of_zero_bytes_is_not_a_buffer():
    g = shapes.linear_chain()
    assert len(build_buffers(g, (0, 1, 2), {1: 0})) == 4
    assert [b.name for b in build_buffers(g, (0, 1, 2), {1: 5}) if not b.tensors] == ["<scratch 1>"]


def permissions(graph, order=None) -> dict[str, tuple]:
    order = tuple(range(len(graph.nodes))) if order is None else order
    return {b.name: b.overlap for b in build_buffers(graph, order, {}) if b.overlap}


def test_lagged_output_may_overlap_its_dying_input():
    """in ─► L (delta -6) ─► a ─► u ─► out: in dies at L; the delta is rounded down to ALIGN (-8)."""
    b = Builder()
    a = b.node(LAGGED, [b.input("in", 100)], "a", 100, delta=-6)
    g = b.graph(b.node(UNARY, [a], "out", 10))
    assert permissions(g) == {"a": (("in", -8),)}
    # step 0: in and a share up to min(100 - 8, 100) = 92 bytes: 108 instead of 200
    assert lower_bound(build_buffers(g, (0, 1), {})) == 112  # step 1: a + out (12)


def test_lagged_refused_when_input_is_read_later():
    """
        in ─► u0 ─► x ─► L ─► a ─► bin ─► out
                    └──────────────►┘
    x is read again by bin (the residual shortcut): L's output must keep off it.
    """
    b = Builder()
    x = b.node(UNARY, [b.input("in", 100)], "x", 100)
    a = b.node(LAGGED, [x], "a", 100, delta=-20)
    g = b.graph(b.node(BINARY, [a, x], "out", 100))
    assert permissions(g) == {}


def test_lagged_refused_for_a_graph_output_or_a_shared_second_input():
    """x is a graph output (read by the caller after invoke); then x is also L's second input."""
    b = Builder()
    x = b.node(UNARY, [b.input("in", 100)], "x", 100)
    g = b.graph(b.node(LAGGED, [x], "a", 100, delta=-20), x)
    assert permissions(g) == {}
    b = Builder()
    x = b.node(UNARY, [b.input("in", 100)], "x", 100)
    r = b.node(ALIAS, [x], "r", 100)
    g = b.graph(b.node(LAGGED, [r, x], "a", 100, delta=-20))
    assert permissions(g) == {}


def test_lagged_over_a_reshaped_input_names_the_whole_buffer():
    """in ─► u0 ─► x ─► r (reshape) ─► L ─► out: the permission is on x's buffer (x and r)."""
    b = Builder()
    x = b.node(UNARY, [b.input("in", 100)], "x", 100)
    r = b.node(ALIAS, [x], "r", 100)
    g = b.graph(b.node(LAGGED, [r], "out", 100, delta=-20))
    assert permissions(g) == {"out": (("x", -20),)}
