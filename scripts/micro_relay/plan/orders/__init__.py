"""Operator orders: any topological order is a valid schedule, and on graphs with branches (residuals,
fan-out) the order decides which tensors are alive together.

Every order function takes the graph's LiveBytes (live_bytes.py) and returns a tuple of node indices. The
memory planner builds the buffers of each candidate, places them, and keeps the smallest arena; ties keep
the earlier candidate in ORDERS, so the model's own order wins unless another one is strictly better.
Candidates: model, memory_greedy, depth_first (heuristics.py) and peak_search (peak_search.py, a bounded
exact search on the peak of live bytes).
"""

from __future__ import annotations

from typing import Callable

from ...ir.graph import Graph
from .heuristics import depth_first, memory_greedy, model_order
from .live_bytes import LiveBytes
from .peak_search import peak_search

Order = Callable[[LiveBytes], tuple[int, ...]]

ORDERS: dict[str, Order] = {
    "model": model_order,
    "memory_greedy": memory_greedy,
    "depth_first": depth_first,
    "peak_search": peak_search,
}


def check_order(graph: Graph, order: tuple[int, ...]) -> None:
    """Raise AssertionError unless `order` runs every node once, each after the producers of its inputs and
    the nodes its reads and assigns of state must follow (Graph.state_order)."""
    if sorted(order) != list(range(len(graph.nodes))):
        raise AssertionError(f"operator order {order} is not a permutation of the {len(graph.nodes)} nodes")
    producer = graph.producers()
    step_of = {node: step for step, node in enumerate(order)}
    for step, index in enumerate(order):
        for name in graph.nodes[index].inputs:
            if name in producer and step_of[producer[name]] >= step:
                raise AssertionError(f"operator order runs node {index} before the producer of '{name}'")
    for index, before in graph.state_order().items():
        for earlier in before:
            if step_of[earlier] >= step_of[index]:
                raise AssertionError(f"operator order runs node {index} before node {earlier}, which it must "
                                     "follow for the state both touch")


__all__ = ["ORDERS", "LiveBytes", "check_order"]
