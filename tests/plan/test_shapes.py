"""One test per named graph shape (drawn, with its arena worked out by hand, in tests/plan/shapes.py), every
offset planner run over every shape."""

from __future__ import annotations

import pytest

from micro_relay.plan import plan_memory
from micro_relay.plan.check import check_plan
from micro_relay.plan.planners import PLANNERS

from . import shapes
from .graphs import BINARY, UNARY

ALL_PLANNERS = pytest.mark.parametrize("planner", sorted(PLANNERS))


def plan_with(graph, planner):
    plan = plan_memory(graph, planners=(planner,))
    check_plan(list(plan.buffers), plan.offsets, plan.arena_bytes)
    assert plan.planner == planner
    return plan


def buffer_tensors(plan) -> set[tuple[str, ...]]:
    return {b.tensors for b in plan.buffers}


@ALL_PLANNERS
def test_linear_chain(planner):
    plan = plan_with(shapes.linear_chain(), planner)
    assert plan.arena_bytes == 2000
    assert plan.lower_bound == 2000
    assert plan.order == (0, 1, 2)


@ALL_PLANNERS
def test_fan_out(planner):
    plan = plan_with(shapes.fan_out(), planner)
    assert plan.arena_bytes == 1600
    assert plan.lower_bound == 1600
    a = plan.buffer_of("a")
    assert (a.first, a.last) == (0, 3)  # until its last reader, whichever order ran u1..u3
    assert all(plan.buffer_of(o).last == 3 for o in ("o1", "o2", "o3"))


@ALL_PLANNERS
def test_residual_block_adds_in_place(planner):
    plan = plan_with(shapes.residual_block(), planner)
    assert plan.arena_bytes == 2200
    assert plan.lower_bound == 2200
    assert ("b", "y") in buffer_tensors(plan)
    assert plan.tensor_offset("y") == plan.tensor_offset("b")


@pytest.mark.parametrize("planner, arena", [
    ("greedy_by_size", 3000),
    ("greedy_by_conflict", 3000),
    ("branch_and_bound", 3000),
    # by first use: x 0, in 1000, a [1000,1200), b [1200,2200), and y (steps 3-4, beside x and b) finds no
    # 1000-byte gap below 2200: [2200,3200).
    ("greedy_by_lifetime", 3200),
])
def test_residual_block_with_copying_add(planner, arena):
    plan = plan_with(shapes.residual_block(add_op=BINARY), planner)
    assert plan.lower_bound == 3000
    assert plan.arena_bytes == arena
    assert ("b", "y") not in buffer_tensors(plan)


@ALL_PLANNERS
def test_diamond_runs_the_big_branch_first(planner):
    plan = plan_with(shapes.diamond(), planner)
    assert plan.arena_bytes == 1500
    assert plan.lower_bound == 1500
    assert plan.order == (0, 2, 4, 1, 3, 5)
    assert plan.order_name == "peak_search"
    bounds = {c.order_name: c.lower_bound for c in plan.tried}
    assert bounds == {"model": 2000, "memory_greedy": 1700, "depth_first": 1700, "peak_search": 1500}
    assert {c.order_name: c.same_as for c in plan.tried}["depth_first"] == "memory_greedy"


@ALL_PLANNERS
def test_long_skip_connection(planner):
    plan = plan_with(shapes.long_skip(), planner)
    assert plan.arena_bytes == 2300
    assert plan.lower_bound == 2300
    skip = plan.buffer_of("s")
    assert (skip.first, skip.last) == (0, 5)


@ALL_PLANNERS
def test_alias_chain_of_reshapes(planner):
    plan = plan_with(shapes.alias_chain(), planner)
    assert plan.arena_bytes == 1200
    assert buffer_tensors(plan) == {("in",), ("a", "b", "c"), ("out",)}
    assert plan.tensor_offset("a") == plan.tensor_offset("b") == plan.tensor_offset("c")


@ALL_PLANNERS
def test_inplace_elementwise(planner):
    plan = plan_with(shapes.inplace_elementwise(), planner)
    assert plan.arena_bytes == 1100
    assert buffer_tensors(plan) == {("in",), ("a", "b", "c"), ("out",)}


@ALL_PLANNERS
def test_elementwise_without_inplace_copies(planner):
    """The same chain with copying ops: a and b are live together at step 1 (2000 bytes), and b and c at
    step 2; a [0,1000), b [1000,2000), c [0,1000) fits, in and out beside a and c. Arena 2000."""
    plan = plan_with(shapes.inplace_elementwise(op=UNARY), planner)
    assert plan.arena_bytes == 2000
    assert len(plan.buffers) == 5


@ALL_PLANNERS
def test_scratch_buffer(planner):
    plan = plan_with(shapes.scratch_buffer(), planner)
    assert plan.arena_bytes == 1312
    assert plan.lower_bound == 1312
    scratch = {b.name: (b.size, b.first, b.last, b.align) for b in plan.buffers if not b.tensors}
    assert scratch == {"<scratch 0>": (256, 0, 0, 8), "<scratch 1>": (512, 1, 1, 8)}
    assert plan.scratch_offset(0) % 8 == 0 and plan.scratch_offset(1) % 8 == 0
    assert plan.scratch_offset(2) is None


@ALL_PLANNERS
def test_lagged_chain(planner):
    """Each window kernel's output starts exactly delta below its input, as drawn in shapes.lagged_chain."""
    plan = plan_with(shapes.lagged_chain(), planner)
    assert (plan.arena_bytes, plan.lower_bound) == (1100, 1100)
    assert {b.name: b.overlap for b in plan.buffers} == {"in": (), "a": (("in", -200),), "b": (("a", -300),),
                                                         "out": ()}
    assert plan.tensor_offset("a") - plan.tensor_offset("in") == -200
    assert plan.tensor_offset("b") - plan.tensor_offset("a") == -300


@ALL_PLANNERS
def test_lagged_residual_keeps_the_shortcut_apart(planner):
    plan = plan_with(shapes.lagged_residual(), planner)
    assert (plan.arena_bytes, plan.lower_bound) == (3000, 3000)
    assert {b.name: b.overlap for b in plan.buffers if b.overlap} == {"b": (("a", -400),)}
