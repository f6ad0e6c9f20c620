"""Reshape chains: reshape(reshape(x)) becomes one reshape of x when the inner result has no other
reader, and a reshape to the shape it already has, whose result is not a graph output, disappears (its
readers read x). Reshapes are aliases (no copy) in the plan either way; this keeps the IR and report short.
A reshape of a state tensor is a copy taken at its point of the schedule (TFLite READ_VARIABLE): it is not
merged into a later reshape, and it disappears only when no assign of that state comes between it and the
last reader of its result, so every reader still sees the value it copied."""

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
        if inner.op != "reshape" or source in graph.outputs or len(readers[source]) != 1 \
                or graph.tensors[inner.inputs[0]].is_state:
            continue
        nodes[index] = replace(node, inputs=inner.inputs)
        removed.add(inner_index)
    return _drop_identity_reshapes(graph.with_nodes(tuple(n for i, n in enumerate(nodes) if i not in removed)))


def _drop_identity_reshapes(graph: Graph) -> Graph:
    rename: dict[str, str] = {}
    readers = graph.consumers()
    kept = []
    for index, node in enumerate(graph.nodes):
        node = replace(node, inputs=tuple(rename.get(n, n) for n in node.inputs))
        out = node.outputs[0] if node.outputs else ""
        if node.op == "reshape" and out not in graph.outputs and not graph.tensors[node.inputs[0]].is_constant \
                and graph.type_of(out) == graph.type_of(node.inputs[0]) \
                and _holds_still(graph, node.inputs[0], index, max(readers[out], default=index)):
            rename[out] = node.inputs[0]
            continue
        kept.append(node)
    return graph.with_nodes(tuple(kept))


def _holds_still(graph: Graph, name: str, first: int, last: int) -> bool:
    """Whether tensor `name` keeps its value from node `first` to node `last`: always, unless it is a state
    that an assign between them stores into."""
    if not graph.tensors[name].is_state:
        return True
    return not any(n.op == "assign" and n.inputs[0] == name for n in graph.nodes[first + 1:last])
