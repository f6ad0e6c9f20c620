"""Operator orders: the cheap heuristics, the bounded peak search, and the cost model they share, checked
against brute force over every topological order of small random graphs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from micro_relay.plan.buffers import build_buffers, lower_bound
from micro_relay.plan.orders import ORDERS, LiveBytes, check_order
from micro_relay.plan.orders.peak_search import search

from . import shapes
from .graphs import ALIAS, BINARY, CONCAT, INPLACE_BINARY, INPLACE_UNARY, LAGGED, SCRATCH, UNARY, Builder


def test_heuristic_orders_on_the_diamond():
    """See shapes.diamond: the cheap orders take the r branch first (peak 1700), the search the p branch."""
    live = LiveBytes(shapes.diamond(), {})
    assert ORDERS["model"](live) == (0, 1, 2, 3, 4, 5)
    assert ORDERS["memory_greedy"](live) == (0, 1, 3, 2, 4, 5)
    assert ORDERS["depth_first"](live) == (0, 1, 3, 2, 4, 5)
    assert [live.peak(o) for o in ((0, 1, 2, 3, 4, 5), (0, 1, 3, 2, 4, 5))] == [2000, 1700]
    assert search(live) == ((0, 2, 4, 1, 3, 5), 1500, True)


def three_branches():
    """
                       ┌─► u ─► p1(300) ─► u ─► q1(8) ─┐
        in(8) ─► u ─► a(8) ┼─► u ─► p2(200) ─► u ─► q2(8) ─┼─► cat ─► out(8)
                       └─► u ─► p3(100) ─► u ─► q3(8) ─┘
    """
    b = Builder()
    a = b.node(UNARY, [b.input("in", 8)], "a", 8)
    ends = []
    for i, size in ((1, 300), (2, 200), (3, 100)):
        p = b.node(UNARY, [a], f"p{i}", size)
        ends.append(b.node(UNARY, [p], f"q{i}", 8))
    return b.graph(b.node(CONCAT, ends, "out", 8))


def test_peak_search_finishes_one_branch_at_a_time():
    """Finishing each branch before the next keeps one p live at a time: the peak is a+p1+q1 = 316 (a
    is still read by the other branches), under any order of the branches, and the search proves it."""
    order, peak, exact = search(LiveBytes(three_branches(), {}))
    assert (peak, exact) == (316, True)
    assert order == (0, 1, 2, 3, 4, 5, 6, 7)


def test_peak_search_is_bounded():
    """With room for one partial order per layer the search still returns a valid order, and says that it
    did not prove it optimal."""
    graph = three_branches()
    live = LiveBytes(graph, {})
    order, peak, exact = search(live, width=1)
    check_order(graph, order)
    assert not exact
    assert peak == live.peak(order) == 316


def test_check_order_rejects_bad_orders():
    graph = shapes.linear_chain()
    check_order(graph, (0, 1, 2))
    with pytest.raises(AssertionError, match="not a permutation"):
        check_order(graph, (0, 1))
    with pytest.raises(AssertionError, match="before the producer of 'a'"):
        check_order(graph, (1, 0, 2))


@st.composite
def random_graphs(draw):
    """Up to 6 nodes of every kind the planner distinguishes, wired to random earlier tensors."""
    b = Builder()
    sizes = st.sampled_from((4, 8, 12, 20))
    tensors = [b.input("in0", draw(sizes))]
    if draw(st.booleans()):
        tensors.append(b.input("in1", draw(sizes)))
    size_of = {name: b.tensors[name].type.nbytes for name in tensors}
    for i in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from((UNARY, BINARY, INPLACE_UNARY, INPLACE_BINARY, ALIAS, SCRATCH, LAGGED)))
        arity = 2 if kind in (BINARY, INPLACE_BINARY) else draw(st.integers(1, 2)) if kind == LAGGED else 1
        inputs = [draw(st.sampled_from(tensors)) for _ in range(arity)]
        if kind == ALIAS:
            size = size_of[inputs[0]]
        elif kind in (INPLACE_UNARY, INPLACE_BINARY):
            size = draw(st.sampled_from((size_of[inputs[0]], size_of[inputs[0]], 4)))
        else:
            size = draw(sizes)
        attrs = {"scratch": draw(st.sampled_from((0, 4, 10)))} if kind == SCRATCH else {}
        if kind == LAGGED:
            attrs = {"delta": max(-size, draw(st.sampled_from((-4, -8, -12))))}
        out = b.node(kind, inputs, f"t{i}", size, **attrs)
        tensors.append(out)
        size_of[out] = size
    read = {n for node in b.nodes for n in node.inputs}
    outputs = [n for n in tensors[len(b.inputs):] if n not in read]
    outputs += [n for n in draw(st.lists(st.sampled_from(tensors), max_size=2)) if n not in outputs]
    return b.graph(*(outputs or [tensors[-1]]))


def topological_orders(graph):
    producer = graph.producers()
    deps = [{producer[n] for n in node.inputs if n in producer} for node in graph.nodes]

    def extend(prefix, done):
        if len(prefix) == len(graph.nodes):
            yield tuple(prefix)
            return
        for v in range(len(graph.nodes)):
            if v not in done and deps[v] <= done:
                yield from extend(prefix + [v], done | {v})

    yield from extend([], frozenset())


def scratch_of(graph):
    return {i: n.attrs["scratch"] for i, n in enumerate(graph.nodes) if n.attrs.get("scratch")}


@given(random_graphs(), st.randoms(use_true_random=False))
def test_live_bytes_counts_what_the_buffers_hold(graph, rnd):
    """The search's step-by-step count equals the lower bound of the buffers built for the same order."""
    orders = list(topological_orders(graph))
    order = orders[rnd.randrange(len(orders))]
    scratch = scratch_of(graph)
    assert LiveBytes(graph, scratch).peak(order) == lower_bound(build_buffers(graph, order, scratch))


@given(random_graphs())
def test_peak_search_is_exact_on_small_graphs(graph):
    scratch = scratch_of(graph)
    best = min(lower_bound(build_buffers(graph, o, scratch)) for o in topological_orders(graph))
    order, peak, exact = search(LiveBytes(graph, scratch))
    check_order(graph, order)
    assert exact
    assert peak == best == lower_bound(build_buffers(graph, order, scratch))


@given(random_graphs())
def test_every_order_is_topological(graph):
    live = LiveBytes(graph, scratch_of(graph))
    for fn in ORDERS.values():
        check_order(graph, fn(live))
