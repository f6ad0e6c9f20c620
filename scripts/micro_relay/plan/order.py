"""Operator order: any topological order is a valid schedule, and on graphs with branches (residuals,
fan-out) the order decides which tensors are alive together. We try a few deterministic orders and keep
the one whose planned arena is smallest (ties keep the earlier candidate, the model's own order first).

memory_greedy: repeatedly run, among the ready nodes, the one that leaves the fewest bytes live after it
  runs (bytes it allocates minus bytes whose last reader it is); ties go to the lowest original index.
depth_first: finish the most recently started branch before starting another (a DFS post-order from the
  graph outputs), which keeps one branch's intermediates alive at a time.
"""

from __future__ import annotations

from ..ir.graph import Graph
from ..ir.registry import get_op


def model_order(graph: Graph) -> tuple[int, ...]:
    return tuple(range(len(graph.nodes)))


def _dependencies(graph: Graph) -> list[set[int]]:
    producer = graph.producers()
    return [{producer[n] for n in node.inputs if n in producer} for node in graph.nodes]


def _out_bytes(graph: Graph, index: int) -> int:
    node = graph.nodes[index]
    if get_op(node.op).alias:
        return 0
    return sum(graph.type_of(n).nbytes for n in node.outputs)


def memory_greedy(graph: Graph) -> tuple[int, ...]:
    deps = _dependencies(graph)
    readers = graph.consumers()
    remaining_readers = {name: set(idx) for name, idx in readers.items()}
    done: set[int] = set()
    order: list[int] = []
    while len(order) < len(graph.nodes):
        ready = [i for i in range(len(graph.nodes)) if i not in done and deps[i] <= done]

        def delta(i: int) -> int:
            freed = 0
            for name in set(graph.nodes[i].inputs):
                if not name or graph.tensors[name].is_constant or name in graph.outputs:
                    continue
                if remaining_readers[name] == {i}:
                    freed += graph.type_of(name).nbytes
            return _out_bytes(graph, i) - freed

        choice = min(ready, key=lambda i: (delta(i), i))
        order.append(choice)
        done.add(choice)
        for name in graph.nodes[choice].inputs:
            if name:
                remaining_readers[name].discard(choice)
    return tuple(order)


def depth_first(graph: Graph) -> tuple[int, ...]:
    deps = _dependencies(graph)
    producer = graph.producers()
    order: list[int] = []
    seen: set[int] = set()
    stack: list[tuple[int, bool]] = [(producer[n], False) for n in reversed(graph.outputs) if n in producer]
    while stack:  # iterative post-order: a node after all of its dependencies
        index, expanded = stack.pop()
        if index in seen:
            continue
        if expanded:
            seen.add(index)
            order.append(index)
            continue
        stack.append((index, True))
        for dep in sorted(deps[index], reverse=True):
            if dep not in seen:
                stack.append((dep, False))
    order += [i for i in range(len(graph.nodes)) if i not in seen]  # nodes no output depends on
    return tuple(order)


ORDERS = {"model": model_order, "memory_greedy": memory_greedy, "depth_first": depth_first}
