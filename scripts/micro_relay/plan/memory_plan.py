"""The memory plan of a graph: the chosen operator order, every buffer's offset, and the arena size.

plan_memory(lowered, planners, orders):
  1. read from the lowering (lower/) the scratch bytes each node's kernel needs and its overlap delta (how far
     below its input its output may start, kernels/overlap.py);
  2. for each candidate order (orders/, in ORDERS order) build the order, check it is a topological order of
     all nodes, and skip it if an earlier candidate gave the same order;
  3. build its buffers (buffers.py: lifetimes, alias and in-place sharing, lagged overlap permissions,
     scratch); if their lower bound is not below the best arena so far the order cannot win and is not
     placed, otherwise the offset planners (planners/) place them and keep the smallest arena;
     When the graph has views or concatenations the plan could make free (buffers.py steps 2 and 3'), each
     order is built and placed with them and without them (as copies, named "<order> (copies)");
  4. keep the candidate with the smallest arena; ties keep the earlier one (the model's order first, views
     before copies);
  5. check the winning plan again (check.py: every buffer placed, aligned, inside the arena, no overlap but
     the permitted ones) before anything is emitted.
Every candidate's result is kept in `tried` for the report. State tensors get their own storage, laid out
apart from the arena (state.py). With `guards` (the debug build, guards.py) step 3 keeps every tensor for the
whole run and grows each buffer by its canary; the plan then also holds the layer slot.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lower import Lowered, as_lowered
from .buffers import Buffer, build_buffers, has_views, lower_bound, node_overlap, scratch_name
from .check import check_plan
from .guards import guarded_buffers
from .orders import ORDERS, LiveBytes, check_order
from .planners import arena_size, plan_offsets
from .state import StatePlan, plan_state


@dataclass(frozen=True)
class Candidate:
    """One order tried: its name, the planner that placed it best, its arena and its lower bound (planner ""
    and arena None when the lower bound showed it could not beat an earlier candidate)."""

    order_name: str
    planner: str
    arena_bytes: int | None
    lower_bound: int
    same_as: str = ""  # the earlier candidate that gave the same order, if any


@dataclass(frozen=True)
class MemoryPlan:
    order: tuple[int, ...]
    order_name: str
    planner: str
    buffers: tuple[Buffer, ...]
    offsets: dict[str, int]  # buffer name -> offset
    arena_bytes: int
    lower_bound: int
    tried: tuple[Candidate, ...] = ()
    state: StatePlan = StatePlan()  # the state tensors' storage, apart from the arena (state.py)
    views: bool = True  # buffers built with views and concatenations in place (buffers.build_buffers)
    guards: bool = False  # a debug build's plan: canaries after every buffer, every tensor kept (guards.py)

    def buffer_of(self, tensor: str) -> Buffer:
        index = self.__dict__.get("_buffer_of")
        if index is None:  # built once per plan: the emitter asks for every tensor
            index = {}
            for buf in self.buffers:
                for name in buf.tensors:
                    index.setdefault(name, buf)
            object.__setattr__(self, "_buffer_of", index)
        return index[tensor]

    def tensor_offset(self, tensor: str) -> int:
        buf = self.buffer_of(tensor)
        return self.offsets[buf.name] + buf.place_of(tensor)

    def scratch_offset(self, node_index: int) -> int | None:
        return self.offsets.get(scratch_name(node_index))


def node_scratch(lowered) -> dict[int, int]:
    """Node index -> scratch bytes its kernel needs (nodes that need none are left out); `lowered`: a Lowered,
    or a graph lowered by default."""
    return as_lowered(lowered).scratch()


def plan_memory(lowered: Lowered, planners: tuple[str, ...] | None = None,
                orders: tuple[str, ...] | None = None, views: tuple[bool, ...] | None = None,
                guards: bool = False) -> MemoryPlan:
    """`lowered`: the lowering to plan (a bare graph is lowered for the default target first); `views`: which of
    build_buffers' settings to try (default: both when the graph has views, step 3); `guards`: the debug
    build's plan (guards.py), which makes no views."""
    names = tuple(ORDERS) if orders is None else orders
    unknown = [n for n in names if n not in ORDERS]
    if unknown or not names:
        raise ValueError(f"unknown operator order(s) {unknown}; known: {', '.join(ORDERS)}")
    lowered = as_lowered(lowered)
    graph = lowered.graph
    scratch = lowered.scratch()
    overlap = node_overlap(lowered)
    live = LiveBytes(graph, scratch, overlap)
    best: MemoryPlan | None = None
    seen: dict[tuple[tuple[int, ...], bool], Candidate] = {}
    tried: list[Candidate] = []
    choices = (False,) if guards else views if views is not None else (True, False) if has_views(graph) \
        else (True,)
    for order_name in names:
        order = ORDERS[order_name](live)
        check_order(graph, order)
        for views in choices:
            name = order_name if views or guards else f"{order_name} (copies)"
            if (order, views) in seen:
                earlier = seen[(order, views)]
                tried.append(Candidate(name, earlier.planner, earlier.arena_bytes, earlier.lower_bound,
                                       earlier.same_as or earlier.order_name))
                continue
            buffers = build_buffers(graph, order, scratch, overlap, views, keep_all=guards)
            if guards:
                buffers = guarded_buffers(graph, buffers, scratch, len(order))
            bound = lower_bound(buffers)
            if best is not None and bound >= best.arena_bytes:
                seen[(order, views)] = Candidate(name, "", None, bound)
                tried.append(seen[(order, views)])
                continue
            planner, offsets = plan_offsets(buffers, planners)
            size = arena_size(buffers, offsets)
            seen[(order, views)] = Candidate(name, planner, size, bound)
            tried.append(seen[(order, views)])
            if best is None or size < best.arena_bytes:
                best = MemoryPlan(order, order_name, planner, tuple(buffers), offsets, size, bound, views=views)
    plan = MemoryPlan(best.order, best.order_name, best.planner, best.buffers, best.offsets, best.arena_bytes,
                      best.lower_bound, tuple(tried), plan_state(graph), best.views, guards)
    check_plan(list(plan.buffers), plan.offsets, plan.arena_bytes)
    return plan
