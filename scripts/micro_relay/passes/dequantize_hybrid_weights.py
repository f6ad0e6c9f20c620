"""Hybrid models (float activations, int8 weights): dequantize the weights at compile time.

TFLite's hybrid kernels quantize activations on the fly; TFLite Micro rejects such models. We compile them
as float models instead: a quantized constant read by an op whose first input is float becomes a float
constant real = scale * (q - zero_point) (per channel along its axis), computed in double and rounded to
float32 once, as DEQUANTIZE does. The float kernels then run unchanged.
"""

from __future__ import annotations

import numpy as np

from ..ir.graph import Graph, Node, Tensor
from ..ir.types import DType, TensorType


def dequantized(tensor: Tensor) -> np.ndarray:
    q = tensor.type.quant
    data = tensor.data.astype(np.float64)
    if q.axis is None:
        return (q.scale * (data - q.zero_point)).astype(np.float32)
    shape = [1] * data.ndim
    shape[q.axis] = -1
    scales = np.asarray(q.scales, dtype=np.float64).reshape(shape)
    zps = np.asarray(q.zero_points, dtype=np.float64).reshape(shape)
    return (scales * (data - zps)).astype(np.float32)


def dequantize_hybrid_weights(graph: Graph) -> Graph:
    tensors = dict(graph.tensors)
    nodes = []
    for node in graph.nodes:
        first = tensors.get(node.inputs[0]) if node.inputs and node.inputs[0] else None
        if first is None or not first.type.dtype.is_float:
            nodes.append(node)
            continue
        inputs = list(node.inputs)
        for position, name in enumerate(node.inputs[1:], start=1):
            tensor = tensors.get(name) if name else None
            if tensor is None or not tensor.is_constant or tensor.type.quant is None:
                continue
            if tensor.type.dtype not in (DType.INT8, DType.INT16, DType.UINT8):
                continue
            float_name = f"{name}/dequantized"
            if float_name not in tensors:
                tensors[float_name] = Tensor(float_name, TensorType(tensor.type.shape, DType.FLOAT32), dequantized(tensor))
            inputs[position] = float_name
        nodes.append(Node(node.op, tuple(inputs), node.outputs, node.attrs, node.name))
    return graph.with_nodes(tuple(nodes), tensors)
