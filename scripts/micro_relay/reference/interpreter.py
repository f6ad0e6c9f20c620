"""Run a graph node by node with numpy; integer ops follow TFLite Micro's arithmetic bit for bit.

Each op's `prepare` computes the same compile-time parameters the C emitter writes, so the interpreter
and the generated C differ only in the language they run in.
"""

from __future__ import annotations

import numpy as np

from ..errors import CompileError
from ..ir.graph import Graph
from ..ir.registry import get_op, op_where


def run(graph: Graph, inputs: list[np.ndarray], keep_all: bool = False) -> list[np.ndarray] | dict[str, np.ndarray]:
    """Outputs of the graph for these inputs (or every tensor's value when keep_all is set)."""
    if len(inputs) != len(graph.inputs):
        raise CompileError(f"model takes {len(graph.inputs)} inputs, got {len(inputs)}", "reference interpreter")
    values: dict[str, np.ndarray] = {n: t.data for n, t in graph.tensors.items() if t.is_constant}
    for name, array in zip(graph.inputs, inputs):
        ttype = graph.type_of(name)
        array = np.asarray(array)
        if array.size != ttype.size:
            raise CompileError(f"input has {array.size} elements, expected {ttype.size} {list(ttype.shape)}", f"tensor '{name}'")
        values[name] = array.astype(ttype.dtype.numpy, copy=False).reshape(ttype.shape)
    for node in graph.nodes:
        op = get_op(node.op)
        params = op.prepare(graph, node)
        args = [values[n] if n else None for n in node.inputs]
        outs = op.reference(graph, node, params, args)
        for name, value in zip(node.outputs, outs):
            ttype = graph.type_of(name)
            if value.shape != ttype.shape or value.dtype != ttype.dtype.numpy:
                raise AssertionError(f"reference of {op_where(graph, node)} gave {value.dtype}{value.shape}")
            values[name] = value
    if keep_all:
        return values
    return [values[n] for n in graph.outputs]
