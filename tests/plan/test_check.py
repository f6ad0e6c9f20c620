"""The plan check that runs before emission catches deliberately bad plans, and lets good ones through."""

from __future__ import annotations

import pytest

from micro_relay.plan import plan_memory
from micro_relay.plan.buffers import Buffer
from micro_relay.plan.check import check_plan
from micro_relay.plan.planners import PLANNERS, greedy_by_size

from . import shapes

# Steps:   0    1    2
#   a   [100  100]          a: 100 B, steps 0-1
#   b        [100  100]     b: 100 B, steps 1-2   (meets a at step 1)
#   c             [100]     c: 100 B, step 2      (never meets a)
ABC = [Buffer("a", 100, 0, 1), Buffer("b", 100, 1, 2), Buffer("c", 100, 2, 2)]


def test_good_plan_passes():
    """b right after a (touching, not sharing a byte); c reuses a's bytes after a died."""
    check_plan(ABC, {"a": 0, "b": 100, "c": 0}, arena=200)


def test_overlap_of_live_buffers_is_caught():
    with pytest.raises(AssertionError, match="overlap: a .* and b"):
        check_plan(ABC, {"a": 0, "b": 60, "c": 0})


def test_one_shared_byte_is_caught():
    buffers = [Buffer("a", 100, 0, 1, align=1), Buffer("b", 100, 1, 2, align=1)]
    check_plan(buffers, {"a": 0, "b": 100})
    with pytest.raises(AssertionError, match="overlap"):
        check_plan(buffers, {"a": 0, "b": 99})


def test_overlap_found_behind_a_long_buffer():
    """x spans [0, 1000); y starts inside it much later in offset order than z: still caught."""
    buffers = [Buffer("x", 1000, 0, 0), Buffer("z", 8, 1, 1), Buffer("y", 8, 0, 0)]
    with pytest.raises(AssertionError, match="overlap: x .* and y"):
        check_plan(buffers, {"x": 0, "z": 500, "y": 900})


def test_misaligned_offset_is_caught():
    buffers = [Buffer("s", 16, 0, 0, align=8)]
    with pytest.raises(AssertionError, match="multiple of 8"):
        check_plan(buffers, {"s": 4})


def test_negative_offset_is_caught():
    with pytest.raises(AssertionError, match="not a multiple|at -4"):
        check_plan(ABC, {"a": -4, "b": 100, "c": 0})


def test_missing_and_unknown_buffers_are_caught():
    with pytest.raises(AssertionError, match=r"missing \['c'\]"):
        check_plan(ABC, {"a": 0, "b": 100})
    with pytest.raises(AssertionError, match=r"unknown \['d'\]"):
        check_plan(ABC, {"a": 0, "b": 100, "c": 0, "d": 0})


def test_buffer_past_the_arena_is_caught():
    with pytest.raises(AssertionError, match="past the arena of 150"):
        check_plan(ABC, {"a": 0, "b": 100, "c": 0}, arena=150)


def test_zero_sized_buffers_share_any_offset():
    buffers = [Buffer("a", 100, 0, 0), Buffer("empty", 0, 0, 0)]
    check_plan(buffers, {"a": 0, "empty": 40})


def test_plan_memory_refuses_a_broken_planner(monkeypatch):
    """A planner that stacks every buffer at offset 0 never reaches the emitter."""
    monkeypatch.setitem(PLANNERS, "all_at_zero", lambda buffers: {b.name: 0 for b in buffers})
    with pytest.raises(AssertionError, match="overlap"):
        plan_memory(shapes.linear_chain(), planners=("all_at_zero",))


def test_greedy_plan_of_the_example_passes():
    check_plan(ABC, greedy_by_size(ABC))


# Steps:   0    1
#   i   [100]           i: 100 B, step 0 (dies at the window kernel of step 0)
#   o   [ 80   80]      o:  80 B, steps 0-1, may overlap i if offset(o) - offset(i) <= -20
LAGGED = [Buffer("i", 100, 0, 0), Buffer("o", 80, 0, 1, overlap=(("i", -20),))]


def test_permitted_overlap_passes():
    """o 20 below i shares 60 bytes with it; o further below, or wholly above, is fine too."""
    check_plan(LAGGED, {"i": 20, "o": 0}, arena=120)
    check_plan(LAGGED, {"i": 40, "o": 0})
    check_plan(LAGGED, {"i": 0, "o": 100})


def test_overlap_past_the_delta_is_caught():
    """o only 16 below i: the kernel's writes would reach input bytes it has still to read."""
    with pytest.raises(AssertionError, match="overlap: o .* and i"):
        check_plan(LAGGED, {"i": 16, "o": 0})
    with pytest.raises(AssertionError, match="overlap"):
        check_plan(LAGGED, {"i": 0, "o": 4})  # o above i's start but inside it


def test_permission_works_one_way_only():
    """The input over its output's tail is not what the kernel allows."""
    buffers = [Buffer("i", 100, 0, 0), Buffer("o", 80, 0, 1, overlap=(("i", -20),))]
    with pytest.raises(AssertionError, match="overlap"):
        check_plan(buffers, {"i": 0, "o": 20})


def test_overlap_of_a_third_buffer_is_caught():
    """The permission covers i and o only: s, live at the same step, may share bytes with neither."""
    buffers = LAGGED + [Buffer("s", 8, 0, 0)]
    with pytest.raises(AssertionError, match="overlap"):
        check_plan(buffers, {"i": 20, "o": 0, "s": 96})


def test_permission_must_name_a_buffer_that_dies_where_the_holder_starts():
    """A permission on a buffer still live after the holder's first step (or on none) is refused outright."""
    with pytest.raises(AssertionError, match="not a buffer whose lifetime ends at step 0"):
        check_plan([Buffer("i", 100, 0, 1), Buffer("o", 80, 0, 1, overlap=(("i", -20),))], {"i": 100, "o": 0})
    with pytest.raises(AssertionError, match="not a buffer"):
        check_plan([Buffer("o", 80, 0, 1, overlap=(("gone", -20),))], {"o": 0})


def test_plan_memory_refuses_a_planner_that_overlaps_too_far(monkeypatch):
    """shapes.lagged_chain with every output only ALIGN bytes below its input: caught before emission."""
    def too_close(buffers):
        offsets, at = {}, 2000
        for buf in buffers:
            at -= 4
            offsets[buf.name] = at
        return offsets
    monkeypatch.setitem(PLANNERS, "too_close", too_close)
    with pytest.raises(AssertionError, match="overlap"):
        plan_memory(shapes.lagged_chain(), planners=("too_close",))
