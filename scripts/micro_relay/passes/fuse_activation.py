"""Activation fusion: `y = nn.relu(x)` (or relu6) right after an op with a fused-activation attribute
becomes that op's clamp, when x has no other reader, is not a graph output, and y keeps x's quantization
(so the standalone op would only have clamped)."""

from __future__ import annotations

from dataclasses import replace

from ..ir.graph import Graph
from ..ir.registry import get_op

FUSABLE = {"nn.relu": "relu", "nn.relu6": "relu6"}


def fuse_activation(graph: Graph) -> Graph:
    readers = graph.consumers()
    producer = graph.producers()
    nodes = list(graph.nodes)
    removed: set[int] = set()
    for index, node in enumerate(graph.nodes):
        if node.op not in FUSABLE:
            continue
        source = node.inputs[0]
        if source not in producer or source in graph.outputs or len(readers[source]) != 1:
            continue
        head_index = producer[source]
        head = nodes[head_index]
        schema = get_op(head.op).attrs.get("activation")
        if schema is None or head.attrs.get("activation", schema.default) != "none" or head_index in removed:
            continue
        if graph.type_of(source) != graph.type_of(node.outputs[0]):
            continue
        nodes[head_index] = replace(head.with_attrs(activation=FUSABLE[node.op]), outputs=node.outputs)
        removed.add(index)
    return graph.with_nodes(tuple(n for i, n in enumerate(nodes) if i not in removed))
