"""Run a graph node by node with numpy; integer ops follow TFLite Micro's arithmetic bit for bit.

Each op's `prepare` computes the same compile-time parameters the C emitter writes, so the interpreter
and the generated C differ only in the language they run in.

State tensors (ir/graph.py) start from the values in `state` (their initial values when not given); an
assign node stores its value there, so later reads see it and, when the caller passes its own `state` dict,
so does the caller's next run: `Session` keeps one between invokes as the generated C does.
"""

from __future__ import annotations

import numpy as np

from ..errors import CompileError
from ..ir.graph import Graph
from ..ir.registry import get_op, op_where


def initial_state(graph: Graph) -> dict[str, np.ndarray]:
    """State tensor name -> a copy of its initial value: what NAME_reset() restores."""
    return {name: graph.tensors[name].initial.copy() for name in graph.states}


def run(graph: Graph, inputs: list[np.ndarray], keep_all: bool = False,
        state: dict[str, np.ndarray] | None = None) -> list[np.ndarray] | dict[str, np.ndarray]:
    """Outputs of the graph for these inputs (or every tensor's value when keep_all is set). `state`, when
    given, holds the state tensors' values at the start and is updated by the run's assigns."""
    if len(inputs) != len(graph.inputs):
        raise CompileError(f"model takes {len(graph.inputs)} inputs, got {len(inputs)}", "reference interpreter")
    values: dict[str, np.ndarray] = {n: t.data for n, t in graph.tensors.items() if t.is_constant}
    state = initial_state(graph) if state is None else state
    for name in graph.states:
        values[name] = state.setdefault(name, graph.tensors[name].initial.copy())
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
        if op.writes_state:
            target = node.inputs[0]
            values[target] = state[target] = np.array(args[1], dtype=graph.type_of(target).dtype.numpy, copy=True)
            continue
        outs = op.reference(graph, node, params, args)
        for name, value in zip(node.outputs, outs):
            ttype = graph.type_of(name)
            if value.shape != ttype.shape or value.dtype != ttype.dtype.numpy:
                raise AssertionError(f"reference of {op_where(graph, node)} gave {value.dtype}{value.shape}")
            values[name] = value
    if keep_all:
        return values
    return [values[n] for n in graph.outputs]


class Session:
    """Consecutive invokes of one model instance: the state carries over, `reset` restores the initial one."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.state = initial_state(graph)

    def invoke(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return run(self.graph, inputs, state=self.state)

    def reset(self) -> None:
        self.state = initial_state(self.graph)
