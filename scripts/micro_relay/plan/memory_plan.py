"""The memory plan of a graph: the chosen operator order, every buffer's offset, and the arena size.

plan_memory tries each candidate order (order.py), builds the buffers for it (buffers.py), runs every
planner (planners.py) and keeps the smallest arena; the winning plan is checked for overlaps again before
anything is emitted.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.graph import Graph
from ..ir.registry import get_op
from .buffers import Buffer, build_buffers, lower_bound
from .order import ORDERS
from .planners import arena_size, check_no_overlap, plan_offsets

ARENA_ALIGN = 16


@dataclass(frozen=True)
class MemoryPlan:
    order: tuple[int, ...]
    order_name: str
    planner: str
    buffers: tuple[Buffer, ...]
    offsets: dict[str, int]  # buffer name -> offset
    arena_bytes: int
    lower_bound: int

    def tensor_offset(self, tensor: str) -> int:
        for buf in self.buffers:
            if tensor in buf.tensors:
                return self.offsets[buf.name]
        raise KeyError(tensor)

    def scratch_offset(self, node_index: int) -> int | None:
        from .buffers import scratch_name

        return self.offsets.get(scratch_name(node_index))


def _scratch(graph: Graph) -> dict[int, int]:
    result = {}
    for index, node in enumerate(graph.nodes):
        op = get_op(node.op)
        nbytes = op.scratch_bytes(graph, node, op.prepare(graph, node))
        if nbytes:
            result[index] = nbytes
    return result


def plan_memory(graph: Graph, planners: tuple[str, ...] | None = None, orders: tuple[str, ...] | None = None) -> MemoryPlan:
    scratch = _scratch(graph)
    best: MemoryPlan | None = None
    tried: set[tuple[int, ...]] = set()
    for order_name in orders or tuple(ORDERS):
        order = ORDERS[order_name](graph)
        if order in tried:
            continue
        tried.add(order)
        buffers = build_buffers(graph, order, scratch)
        planner, offsets = plan_offsets(buffers, planners)
        size = arena_size(buffers, offsets)
        if best is None or size < best.arena_bytes:
            best = MemoryPlan(order, order_name, planner, tuple(buffers), offsets, size, lower_bound(buffers))
    check_no_overlap(list(best.buffers), best.offsets)
    return best
