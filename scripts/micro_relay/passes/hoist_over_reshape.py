"""Hoisting over reshapes: an element-wise op right after a reshape that keeps the last (channel) axis runs
before it instead, so that the folds that follow (channel-affine folding, activation fusion, QDQ lowering)
see it next to the op that produced the data.

The ONNX/PyTorch frontend runs a 1-D convolution as a 2-D one over a 1-pixel-high image, with reshapes on
both sides; its bias add, batch norm and relu then follow a reshape. For y = f(reshape(x), c) where f is
add, subtract or multiply with a constant c of one value per channel (shape (C,)) or a scalar, or f is
relu/relu6 or qnn.quantize: y' = f(x, c) then y = reshape(y'). (In a QDQ model c may be the dequantized
int32 bias, and the quantize that follows moves too, so the op, its bias and its quantize meet.) Applies
when the reshape's output has no other reader, is not a graph output, and the last axis keeps its length (so
a per-channel constant still broadcasts the same).
Element-wise ops commute with a reshape; the result is the same bytes.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir.graph import Graph, Node, Tensor, fresh_name

UNARY = frozenset({"nn.relu", "nn.relu6", "qnn.quantize"})
BINARY = frozenset({"add", "subtract", "multiply"})


def _constant_per_channel(graph: Graph, producer: dict, name: str, channels: int) -> bool:
    t = graph.tensors[name]
    if t.type.size != 1 and t.type.shape != (channels,):
        return False
    if t.is_constant:
        return True
    source = producer.get(name)  # a dequantized constant (a QDQ model's bias)
    return source is not None and graph.nodes[source].op == "qnn.dequantize" \
        and graph.tensors[graph.nodes[source].inputs[0]].is_constant


def hoist_over_reshape(graph: Graph) -> Graph:
    tensors = dict(graph.tensors)
    nodes = list(graph.nodes)
    producer = graph.producers()
    readers = graph.consumers()
    for index, node in enumerate(graph.nodes):
        if node.op not in UNARY | BINARY:
            continue
        r_index = producer.get(node.inputs[0])
        if r_index is None or nodes[r_index] is None or nodes[r_index].op != "reshape":
            continue
        reshape = nodes[r_index]
        source, middle = reshape.inputs[0], reshape.outputs[0]
        before, after = tensors[source].type, tensors[middle].type
        if middle in graph.outputs or len(readers[middle]) != 1 or before.shape[-1] != after.shape[-1] \
                or tensors[source].is_constant:
            continue
        if node.op in BINARY and not _constant_per_channel(graph, graph.producers(), node.inputs[1], after.shape[-1]):
            continue
        out = node.outputs[0]
        hoisted = fresh_name(tensors, f"{out}_hoisted")
        tensors[hoisted] = Tensor(hoisted, tensors[out].type.with_shape(before.shape))
        nodes[r_index] = replace(node, inputs=(source, *node.inputs[1:]), outputs=(hoisted,))
        nodes[index] = Node("reshape", (hoisted,), (out,), {"newshape": tuple(tensors[out].type.shape)},
                            name=reshape.name)
        producer[hoisted] = r_index
        producer[out] = index
    return graph.with_nodes(nodes, tensors)
