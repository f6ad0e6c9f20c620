"""Activation fusion: `y = nn.relu(x)` (or relu6) right after an op with a fused-activation attribute
becomes that op's clamp, when x has no other reader, is not a graph output, and y keeps x's quantization
(so the standalone op would only have clamped). A relu6 after an op already fused with relu replaces it
(relu6(relu(x)) = relu6(x): ONNX's Clip(0, 6) arrives as a relu then a relu6)."""

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
        current = head.attrs.get("activation", schema.default) if schema is not None else None
        if current not in ("none", "relu") or (current == "relu" and node.op != "nn.relu6") or head_index in removed:
            continue
        if graph.type_of(source) != graph.type_of(node.outputs[0]):
            continue
        nodes[head_index] = replace(head.with_attrs(activation=FUSABLE[node.op]), outputs=node.outputs)
        producer[node.outputs[0]] = head_index
        removed.add(index)
    return graph.with_nodes(tuple(n for i, n in enumerate(nodes) if i not in removed))
