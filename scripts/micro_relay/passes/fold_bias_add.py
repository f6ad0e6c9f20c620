"""Bias folding: `y = add(conv(x, w), b)` with a per-output-channel constant b becomes conv(x, w, b).

ONNX and PyTorch graphs arrive from Relax with the bias as a separate broadcast add. Applies to nn.conv2d,
nn.depthwise_conv2d and nn.dense without a bias whose float output has no other reader and is not a graph
output, when b is a float vector of one value per output channel: a constant, or the output of
qnn.dequantize on a constant (a QDQ model's int32 bias, which lower_qdq then reads as integers).
"""

from __future__ import annotations

from dataclasses import replace

from ..ir.graph import Graph
from ..ir.types import DType

BIASED_OPS = frozenset({"nn.conv2d", "nn.depthwise_conv2d", "nn.dense"})


def _is_channel_constant(graph: Graph, producer: dict, name: str, channels: int) -> bool:
    t = graph.type_of(name)
    if t.dtype != DType.FLOAT32 or t.shape != (channels,):
        return False
    if graph.tensors[name].is_constant:
        return True
    source = producer.get(name)
    return source is not None and graph.nodes[source].op == "qnn.dequantize" \
        and graph.tensors[graph.nodes[source].inputs[0]].is_constant


def fold_bias_add(graph: Graph) -> Graph:
    readers = graph.consumers()
    producer = graph.producers()
    nodes = list(graph.nodes)
    removed: set[int] = set()
    for index, node in enumerate(graph.nodes):
        if node.op != "add" or node.attrs.get("activation", "none") != "none":
            continue
        for head_input, bias in (node.inputs, node.inputs[::-1]):
            head_index = producer.get(head_input)
            if head_index is None or head_index in removed:
                continue
            head = nodes[head_index]
            if head.op not in BIASED_OPS or (len(head.inputs) > 2 and head.inputs[2]) \
                    or head.attrs.get("activation", "none") != "none":
                continue
            out = graph.type_of(head_input)
            if out.dtype != DType.FLOAT32 or head_input in graph.outputs or len(readers[head_input]) != 1:
                continue
            if graph.type_of(node.outputs[0]).shape != out.shape:
                continue
            if not _is_channel_constant(graph, producer, bias, out.shape[-1]):
                continue
            nodes[head_index] = replace(head, inputs=(head.inputs[0], head.inputs[1], bias), outputs=node.outputs)
            removed.add(index)
            break
    # the bias's dequantize node may come after the conv: move every kept node after its inputs' producers
    kept = [n for i, n in enumerate(nodes) if i not in removed]
    return graph.with_nodes(_topological(graph, kept))


def _topological(graph: Graph, nodes: list) -> list:
    """The nodes in an order where every input is written before it is read (stable for valid orders)."""
    written = set(graph.inputs) | {n for n, t in graph.tensors.items() if t.is_constant}
    pending, ordered = list(nodes), []
    while pending:
        progress = False
        rest = []
        for node in pending:
            if all(not n or n in written for n in node.inputs):
                ordered.append(node)
                written.update(node.outputs)
                progress = True
            else:
                rest.append(node)
        pending = rest
        if not progress:  # a cycle cannot arise from these rewrites; keep the rest as they were
            ordered.extend(rest)
            break
    return ordered
