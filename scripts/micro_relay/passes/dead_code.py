"""Dead-code elimination: drop nodes none of whose outputs reach a graph output."""

from __future__ import annotations

from ..ir.graph import Graph


def eliminate_dead_code(graph: Graph) -> Graph:
    live = set(graph.outputs)
    kept = []
    for node in reversed(graph.nodes):
        if any(out in live for out in node.outputs):
            kept.append(node)
            live.update(n for n in node.inputs if n)
    return graph.with_nodes(tuple(reversed(kept)))
