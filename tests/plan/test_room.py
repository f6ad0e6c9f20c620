"""plan/room.py: kernels get their faster, larger-scratch variant where the arena has the room anyway.

Named graph shapes (tests/plan/graphs.py; ROOMY is a test op whose scratch is `base` bytes or one of its
`offers`, largest first), each with the arena and the choice worked out in its docstring.
"""

from __future__ import annotations

import pytest

from .graphs import ROOMY, UNARY, Builder
from micro_relay.lower import lower
from micro_relay.plan.memory_plan import plan_memory
from micro_relay.plan.report import plan_report
from micro_relay.plan.room import use_room


def room_after_the_peak():
    """
        in(1000) ─► u0 ─► a(1000) ─► R (scratch 0; offers 1504, 608, 304) ─► b(100) ─► u2 ─► out(100)

    Live: 0: in+a = 2000, 1: a+b+scratch = 1100 + s, 2: b+out = 200. The arena is 2000 (step 0). With 1504,
    step 1 needs 2604: too much; with 608, 1708 fits. R keeps 608; the arena stays 2000.
    """
    b = Builder()
    x = b.input("in", 1000)
    a = b.node(UNARY, [x], "a", 1000)
    r = b.node(ROOMY, [a], "b", 100, base=0, offers=(1504, 608, 304))
    return b.graph(b.node(UNARY, [r], "out", 100))


def room_at_the_peak():
    """
        in(500) ─► R (scratch 64; offers 256) ─► out(500)

    R's step is the only one: 500 + 500 + 64 = 1064 is the arena, and 256 would make it 1256. R keeps 64.
    """
    b = Builder()
    x = b.input("in", 500)
    return b.graph(b.node(ROOMY, [x], "out", 500, base=64, offers=(256,)))


def room_at_two_steps():
    """
        in(1000) ─► u0 ─► a(1000) ─► R1 (0; offers 960, 800) ─► b(100) ─► R2 (0; offers 1200, 400) ─► c(100) ─► u3 ─► out(100)

    Live: 0: 2000 (the arena), 1: a+b+s1 = 1100 + s1, 2: b+c+s2 = 200 + s2, 3: 200. R1: 960 gives 2060, too
    much; 800 gives 1900. R2: 1200 gives 1400. Both run faster; the arena stays 2000. (Scratch is rounded up
    to 16 bytes: the offers are multiples of 16, so the sums are exact.)
    """
    b = Builder()
    x = b.input("in", 1000)
    a = b.node(UNARY, [x], "a", 1000)
    r1 = b.node(ROOMY, [a], "b", 100, base=0, offers=(960, 800))
    r2 = b.node(ROOMY, [r1], "c", 100, base=0, offers=(1200, 400))
    return b.graph(b.node(UNARY, [r2], "out", 100))


# name -> (builder, arena, node index -> scratch kept (None: the default))
SHAPES = {
    "room_after_the_peak": (room_after_the_peak, 2000, {1: {"scratch": 608}}),
    "room_at_the_peak": (room_at_the_peak, 1064, {0: None}),
    "room_at_two_steps": (room_at_two_steps, 2000, {1: {"scratch": 800}, 2: {"scratch": 1200}}),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_room_keeps_the_arena_and_takes_what_fits(name):
    build, arena, kept = SHAPES[name]
    graph = build()
    assert plan_memory(graph).arena_bytes == arena
    roomy, choices = use_room(lower(graph))
    assert plan_memory(roomy).arena_bytes == arena
    assert {c.node: c.variant for c in choices} == kept
    for index, variant in kept.items():
        assert roomy.nodes[index].options == (variant or {})
        assert roomy.nodes[index].plan.scratch_bytes == (variant or {}).get("scratch", graph.nodes[index].attrs["base"])


def one_function_two_layers():
    """
        in(1000) ─► u0 ─► a(1000) ─► R1 (0; offers 608; calls k) ─► b(100) ─► R2 (0; offers 1504; calls k) ─► c(100)

    Live: 0: 2000 (the arena), 1: 1100 + s1, 2: 200 + s2. R1's 608 fits (1708), R2's 1504 fits too (1704):
    both move to k_roomy, nothing else calls k. With R2 offering 2000 instead (2200: too much), R2 stays on k,
    so R1's variant would link k_roomy besides k: R1 keeps its default as well.
    """
    b = Builder()
    x = b.input("in", 1000)
    a = b.node(UNARY, [x], "a", 1000)
    r1 = b.node(ROOMY, [a], "b", 100, base=0, offers=(608,), entry="k")
    return b, r1


def test_a_variant_that_would_link_a_second_function_is_dropped():
    b, r1 = one_function_two_layers()
    both = b.graph(b.node(ROOMY, [r1], "c", 100, base=0, offers=(1504,), entry="k"))
    assert [c.variant for c in use_room(lower(both))[1]] == [{"scratch": 608}, {"scratch": 1504}]
    b, r1 = one_function_two_layers()
    blocked = b.graph(b.node(ROOMY, [r1], "c", 100, base=0, offers=(2000,), entry="k"))
    roomy, choices = use_room(lower(blocked))
    assert [c.variant for c in choices] == [None, None]
    assert "k stays linked" in choices[0].note
    assert roomy == lower(blocked)


def test_a_variant_already_set_is_left_alone():
    """room_after_the_peak with R's scratch option set to 304 by hand: no candidate, the lowering comes back as
    is."""
    lowered = lower(room_after_the_peak(), options={1: {"scratch": 304}})
    assert use_room(lowered) == (lowered, ())


def test_the_report_lists_each_choice():
    graph = room_at_two_steps()
    roomy, choices = use_room(lower(graph))
    report = plan_report("m", roomy, plan_memory(roomy), "test", choices)
    assert [(e["node"], e["variant"], e["scratch_bytes"]) for e in report["room"]] == \
        [(1, {"scratch": 800}, 800), (2, {"scratch": 1200}, 1200)]
