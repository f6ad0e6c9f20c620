"""Constant folding: a node whose inputs are all constants is evaluated now, with the reference
interpreter, and its outputs become constants (flash) instead of runtime work and arena bytes."""

from __future__ import annotations

from ..ir.graph import Graph, Tensor
from ..ir.registry import get_op


def fold_constants(graph: Graph) -> Graph:
    tensors = dict(graph.tensors)
    nodes = []
    for node in graph.nodes:
        present = [n for n in node.inputs if n]
        if present and all(tensors[n].is_constant for n in present):
            op = get_op(node.op)
            view = graph.with_nodes((node,), tensors)
            values = op.reference(view, node, op.prepare(view, node), [tensors[n].data if n else None for n in node.inputs])
            for name, value in zip(node.outputs, values):
                tensors[name] = Tensor(name, tensors[name].type, value)
            continue
        nodes.append(node)
    return graph.with_nodes(nodes, tensors)
