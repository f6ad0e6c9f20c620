"""Flatten-transpose folding: dense(reshape(transpose(x))) -> dense'(reshape(x)) with permuted weights.

An NCHW model that flattens a feature map into a dense layer reads the map in (C, H, W) order; stored NHWC,
the frontend restores that order with a transpose just before the flatten. The dense layer can instead
read the NHWC bytes directly if its weight columns are permuted the same way, at compile time:
with src[k] = the index in x's flat (per-batch) order of the element the flatten puts at position k,
  out[o] = sum_k W[o, k] * x_flat[src[k]]   so   W'[o, src[k]] = W[o, k].
Applies when the transpose keeps the batch axis first, the reshape makes (N, K) with N the batch, each
intermediate has only that one reader and is not a graph output, and the weight is a constant (float or
integer; per-channel scales run along the output axis, which does not move).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..ir.graph import Graph, Tensor, fresh_name


def _column_order(shape, axes) -> np.ndarray:
    """src: for each flattened position of transpose(x, axes), its index in x's flat order (batch dropped)."""
    inner = np.arange(int(np.prod(shape[1:]))).reshape(shape[1:])
    return inner.transpose([a - 1 for a in axes[1:]]).reshape(-1)


def fold_flatten_transpose(graph: Graph) -> Graph:
    readers, producer = graph.consumers(), graph.producers()
    tensors = dict(graph.tensors)
    nodes = list(graph.nodes)
    for index, dense in enumerate(graph.nodes):
        if dense.op != "nn.dense" or not tensors[dense.inputs[1]].is_constant:
            continue
        flat = dense.inputs[0]
        r_index = producer.get(flat)
        if r_index is None or graph.nodes[r_index].op != "reshape":
            continue
        reshape = graph.nodes[r_index]
        t_out = reshape.inputs[0]
        t_index = producer.get(t_out)
        if t_index is None or graph.nodes[t_index].op != "transpose":
            continue
        transpose = graph.nodes[t_index]
        x = transpose.inputs[0]
        axes = tuple(int(a) for a in transpose.attrs["axes"])
        shape = graph.type_of(x).shape
        if axes[0] != 0 or graph.type_of(flat).shape != (shape[0], int(np.prod(shape[1:]))):
            continue
        if any(len(readers[n]) != 1 or n in graph.outputs for n in (t_out, flat)):
            continue
        weight = tensors[dense.inputs[1]]
        permuted = np.empty_like(weight.data)
        permuted[:, _column_order(shape, axes)] = weight.data
        name = fresh_name(tensors, weight.name + "_nhwc")
        tensors[name] = Tensor(name, weight.type, permuted)
        nodes[t_index] = None
        nodes[r_index] = replace(reshape, inputs=(x,))
        nodes[index] = replace(dense, inputs=(dense.inputs[0], name, *dense.inputs[2:]))
    return graph.with_nodes([n for n in nodes if n is not None], tensors)
