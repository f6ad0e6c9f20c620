"""Reshape chains: reshape(reshape(x)) becomes one reshape of x when the inner result has no other
reader. Reshapes are aliases (no copy) in the plan either way; this keeps the IR and report short."""

from __future__ import annotations

from dataclasses import replace

from ..ir.graph import Graph


def merge_reshapes(graph: Graph) -> Graph:
    readers = graph.consumers()
    producer = graph.producers()
    nodes = list(graph.nodes)
    removed: set[int] = set()
    for index, node in enumerate(graph.nodes):
        if node.op != "reshape":
            continue
        source = node.inputs[0]
        inner_index = producer.get(source)
        if inner_index is None or inner_index in removed:
            continue
        inner = nodes[inner_index]
        if inner.op != "reshape" or source in graph.outputs or len(readers[source]) != 1:
            continue
        nodes[index] = replace(node, inputs=inner.inputs)
        removed.add(inner_index)
    return graph.with_nodes(tuple(n for i, n in enumerate(nodes) if i not in removed))
