"""The verifier: rejects anything outside the Micro Relay subset, naming the node, op and tensor.

Checks, in order: every shape is static and positive, every tensor fits a 32-bit target (dimensions, bytes,
and all tensors together) and its quantization is usable (types.py); every op is registered and its attributes match its
schema; every tensor is written once (by one node, or as a graph input or constant) and defined before it
is read; every graph output exists; and every node's declared output types equal what its op infers.
State tensors (graph.py) are defined from the start, like constants: their initial value matches their type,
no node writes one as an output, and none is a graph input or output (those live in the arena); only an op
with `writes_state` (assign) has no outputs.
"""

from __future__ import annotations

from ..errors import CompileError
from .graph import Graph
from .registry import get_op, op_where
from .types import MAX_TENSOR_BYTES


def _check_attrs(op, node, where: str) -> None:
    for key, spec in op.attrs.items():
        if key not in node.attrs:
            if spec.required:
                raise CompileError(f"op {node.op} needs attribute '{key}'", where)
            continue
        value = node.attrs[key]
        ok = isinstance(value, spec.kind) and not (spec.kind is int and isinstance(value, bool))
        if spec.kind is float and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if not ok:
            raise CompileError(f"attribute '{key}' of {node.op} must be {spec.kind.__name__}, got {value!r}", where)
        if spec.choices and value not in spec.choices:
            raise CompileError(f"attribute '{key}' of {node.op} must be one of {list(spec.choices)}, got {value!r}", where)
    for key in node.attrs:
        if key not in op.attrs:
            raise CompileError(f"op {node.op} has no attribute '{key}'", where)


def verify(graph: Graph) -> Graph:
    """Return the graph unchanged if it is valid Micro Relay; raise CompileError otherwise."""
    total = 0
    for name, tensor in graph.tensors.items():
        if tensor.name != name:
            raise CompileError(f"tensor registered as '{name}' is named '{tensor.name}'", f"tensor '{name}'")
        problem = tensor.type.problem()
        if problem:
            raise CompileError(problem, f"tensor '{name}'")
        total += tensor.type.nbytes
        if total > MAX_TENSOR_BYTES:  # bounds the arena (and flash) before the planner sizes anything
            raise CompileError(f"the model's tensors need more than the {MAX_TENSOR_BYTES} bytes a 32-bit target "
                               "can address", f"tensor '{name}'")
        if tensor.is_constant and tuple(tensor.data.shape) != tensor.type.shape:
            raise CompileError(f"constant data has shape {tensor.data.shape}, type says {tensor.type.shape}", f"tensor '{name}'")
        if tensor.is_state:
            if tensor.is_constant:
                raise CompileError("a state tensor cannot be a constant", f"tensor '{name}'")
            if tuple(tensor.initial.shape) != tensor.type.shape or tensor.initial.dtype != tensor.type.dtype.numpy:
                raise CompileError(f"initial value is {tensor.initial.dtype}{list(tensor.initial.shape)}, type says "
                                   f"{tensor.type.dtype.value}{list(tensor.type.shape)}", f"tensor '{name}'")
            if name in graph.inputs or name in graph.outputs:
                raise CompileError("a state tensor cannot be a graph input or output", f"tensor '{name}'")
    defined = set(graph.inputs) | {n for n, t in graph.tensors.items() if t.is_constant or t.is_state}
    for name in graph.inputs:
        if name not in graph.tensors:
            raise CompileError("graph input has no type", f"tensor '{name}'")
        if graph.tensors[name].is_constant:
            raise CompileError("graph input is a constant", f"tensor '{name}'")
    for index, node in enumerate(graph.nodes):
        where = f"node {index} {node.label}, tensor '{node.outputs[0] if node.outputs else ''}'"
        op = get_op(node.op, where)
        low, high = op.num_inputs
        if not low <= len(node.inputs) <= high:
            raise CompileError(f"op {node.op} takes {low}..{high} inputs, got {len(node.inputs)}", where)
        missing = [i for i, name in enumerate(node.inputs[:low]) if not name]
        if missing:
            raise CompileError(f"op {node.op} needs input {missing[0]}, which is absent", where)
        _check_attrs(op, node, where)
        for name in node.inputs:
            if name and name not in defined:
                raise CompileError(f"input '{name}' is read before it is written", where)
        for name in node.outputs:
            if name in defined:
                raise CompileError(f"tensor '{name}' is written twice", where)
            if name not in graph.tensors:
                raise CompileError(f"output '{name}' has no type", where)
            defined.add(name)
        if not node.outputs and not op.writes_state:
            raise CompileError(f"op {node.op} writes no tensor", where)
        if node.outputs and op.writes_state:
            raise CompileError(f"op {node.op} stores into a state and has no outputs", where)
        inferred = op.infer(graph, node)
        if len(inferred) != len(node.outputs):
            raise CompileError(f"op {node.op} writes {len(inferred)} tensors, the node lists {len(node.outputs)}",
                               where)
        for name, expected in zip(node.outputs, inferred):
            actual = graph.type_of(name)
            if actual.shape != expected.shape or actual.dtype != expected.dtype:
                raise CompileError(
                    f"output type {actual.dtype.value}{list(actual.shape)} differs from inferred "
                    f"{expected.dtype.value}{list(expected.shape)}",
                    op_where(graph, node),
                )
    for name in graph.outputs:
        if name not in defined:
            raise CompileError("graph output is never written", f"tensor '{name}'")
    return graph
