"""Dead-code elimination: drop nodes none of whose outputs reach a graph output or a state store (an assign
is kept with everything it reads: its effect is the state the next invoke sees)."""

from __future__ import annotations

from ..ir.graph import Graph
from ..ir.registry import get_op


def eliminate_dead_code(graph: Graph) -> Graph:
    live = set(graph.outputs)
    kept = []
    for node in reversed(graph.nodes):
        if get_op(node.op).writes_state or any(out in live for out in node.outputs):
            kept.append(node)
            live.update(n for n in node.inputs if n)
    return graph.with_nodes(tuple(reversed(kept)))
