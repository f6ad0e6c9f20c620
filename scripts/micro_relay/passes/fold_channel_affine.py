"""Channel-affine folding: `add`, `subtract` or `multiply` of a per-output-channel constant right after a
float nn.conv2d, nn.depthwise_conv2d, nn.dense or nn.conv2d_transpose is folded into that op's bias and weights.

ONNX and PyTorch graphs arrive from Relax with the bias as a separate broadcast add, and a batch norm that
Relax could not fold (after a convolution that has a bias) as subtract/multiply/multiply/add. For a head op
h with float output, no fused activation, one reader and not a graph output, and a constant c of shape (C,)
(C = output channels) or a scalar:
  add(h, c) -> bias + c          subtract(h, c) -> bias - c          multiply(h, c) -> w * c, bias * c
(the weight scaled along its output-channel axis). The add also takes c = qnn.dequantize(constant): a QDQ
model's int32 bias, which lower_qdq then reads as integers; that form only fills an absent bias.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..ir.graph import Graph, Tensor, fresh_name
from ..ir.types import DType, TensorType

HEAD_OPS = {"nn.conv2d": 0, "nn.depthwise_conv2d": 3, "nn.dense": 0,  # op -> weight's output-channel axis
            "nn.conv2d_transpose": 0}
AFFINE_OPS = frozenset({"add", "subtract", "multiply"})


def _channel_values(graph: Graph, name: str, channels: int) -> np.ndarray | None:
    t = graph.tensors[name]
    if not t.is_constant or t.type.dtype != DType.FLOAT32 or t.type.size not in (1, channels):
        return None
    if t.type.size == channels and t.type.shape[-1] != channels:
        return None
    return np.broadcast_to(t.data.astype(np.float32).reshape(-1), (channels,))


def _dequantized_bias(graph: Graph, producer: dict, name: str, channels: int) -> bool:
    source = producer.get(name)
    return source is not None and graph.nodes[source].op == "qnn.dequantize" \
        and graph.tensors[graph.nodes[source].inputs[0]].is_constant and graph.type_of(name).shape == (channels,)


def _fold(graph: Graph, tensors: dict, head, node, operand: str, producer: dict):
    """The head node with `node` folded in, or None. New constants are added to `tensors`."""
    out = graph.type_of(head.outputs[0])
    channels = out.shape[-1]
    bias_name = head.inputs[2] if len(head.inputs) > 2 else ""
    if node.op == "add" and not bias_name and _dequantized_bias(graph, producer, operand, channels):
        return replace(head, inputs=(head.inputs[0], head.inputs[1], operand), outputs=node.outputs)
    values = _channel_values(graph, operand, channels)
    weight = tensors[head.inputs[1]]
    if values is None or not weight.is_constant or weight.type.dtype != DType.FLOAT32:
        return None
    if bias_name and (not tensors[bias_name].is_constant or tensors[bias_name].type.dtype != DType.FLOAT32):
        return None
    bias = tensors[bias_name].data.astype(np.float32) if bias_name else np.zeros(channels, np.float32)
    w = weight.data.astype(np.float32)
    if node.op == "add":
        bias = bias + values
    elif node.op == "subtract":
        bias = bias - values
    else:
        shape = [1] * w.ndim
        shape[HEAD_OPS[head.op]] = channels
        w = w * values.reshape(shape)
        bias = bias * values
    w_name, b_name = fresh_name(tensors, head.inputs[1] + "_f"), fresh_name(tensors, node.outputs[0] + "_bias")
    tensors[w_name] = Tensor(w_name, weight.type, w.astype(np.float32))
    tensors[b_name] = Tensor(b_name, TensorType((channels,), DType.FLOAT32), bias.astype(np.float32))
    return replace(head, inputs=(head.inputs[0], w_name, b_name), outputs=node.outputs)


def fold_channel_affine(graph: Graph) -> Graph:
    tensors = dict(graph.tensors)
    nodes = list(graph.nodes)
    changed = True
    while changed:  # a fold can enable the next (bias add, then the batch norm's multiply and add)
        changed = False
        current = Graph(tensors, (), graph.inputs, graph.outputs).with_nodes(nodes, tensors)
        readers, producer = current.consumers(), current.producers()
        for index, node in enumerate(current.nodes):
            if node.op not in AFFINE_OPS or node.attrs.get("activation", "none") != "none":
                continue
            pairs = (node.inputs, node.inputs[::-1]) if node.op != "subtract" else (node.inputs,)
            for head_out, operand in pairs:
                head_index = producer.get(head_out)
                if head_index is None:
                    continue
                head = current.nodes[head_index]
                if head.op not in HEAD_OPS or head.attrs.get("activation", "none") != "none" \
                        or current.type_of(head_out).dtype != DType.FLOAT32 or head_out in graph.outputs \
                        or len(readers[head_out]) != 1 \
                        or current.type_of(node.outputs[0]).shape != current.type_of(head_out).shape:
                    continue
                folded = _fold(current, tensors, head, node, operand, producer)
                if folded is None:
                    continue
                nodes = list(current.nodes)
                nodes[head_index] = folded
                del nodes[index]
                nodes = _topological(current, nodes)
                changed = True
                break
            if changed:
                break
    return Graph(tensors, (), graph.inputs, graph.outputs).with_nodes(nodes, tensors)


def _topological(graph: Graph, nodes: list) -> list:
    """The nodes in an order where every input is written before it is read (stable for valid orders):
    a folded-in dequantized bias may be computed after the head node in the original order."""
    written = set(graph.inputs) | {n for n, t in graph.tensors.items() if t.is_constant}
    pending, ordered = list(nodes), []
    while pending:
        rest = []
        for node in pending:
            if all(not n or n in written for n in node.inputs):
                ordered.append(node)
                written.update(node.outputs)
            else:
                rest.append(node)
        if len(rest) == len(pending):  # cannot happen for these rewrites; keep the rest as they were
            return ordered + rest
        pending = rest
    return ordered
