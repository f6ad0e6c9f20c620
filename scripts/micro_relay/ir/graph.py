"""The graph: named tensors and one flat list of nodes in execution order.

There is no let, no closure, no control flow and no tuple: a node reads tensors by name and writes tensors
by name, every tensor is written once (by a node, or it is a graph input or a constant), and the node list is
a valid execution order. Graphs are values: passes build new graphs with `replace`, never mutate one.

State tensors (`initial` set) are the one exception to "written once": storage that keeps its value between
invokes (an LSTM's or SVDF's memory, a resource variable). A node reads one like any tensor; an `assign`
node (an op with `writes_state`, no outputs) stores a new value into it at its point of the schedule, so a
read sees the value at invoke start or, after an assign earlier in the node list, the assigned one.
`state_order` gives the order those reads and assigns must keep.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from .types import TensorType


@dataclass(frozen=True)
class Tensor:
    """A named tensor; `data` is set for constants (weights, biases, shapes) and None otherwise."""

    name: str
    type: TensorType
    data: np.ndarray | None = field(default=None, compare=False)
    # A graph input stored in another layout than the source model's (an NCHW ONNX or PyTorch input compiled
    # NHWC): the model's axes in stored order, stored = numpy.transpose(model_value, source_axes). None: the
    # model's own layout. Data a user feeds the original model (calibration samples) is laid out this way.
    source_axes: tuple[int, ...] | None = field(default=None, compare=False)
    # A state tensor's value before the first invoke and after a reset (zeros when the model gives none);
    # None for every other tensor. A state lives in its own storage, never in the arena, and is not constant.
    initial: np.ndarray | None = field(default=None, compare=False)
    # The state whose storage holds this tensor (plan/state.py: a node's new state written in place, which the
    # assign after it then need not copy); "" for a tensor in the arena, a constant or a state itself.
    stored_in: str = field(default="", compare=False)

    @property
    def is_constant(self) -> bool:
        return self.data is not None

    @property
    def is_state(self) -> bool:
        return self.initial is not None

    @property
    def source_shape(self) -> tuple[int, ...]:
        """The shape the source model gives this tensor (its stored shape when the layouts agree)."""
        if self.source_axes is None:
            return self.type.shape
        shape = [0] * len(self.source_axes)
        for stored, model_axis in enumerate(self.source_axes):
            shape[model_axis] = self.type.shape[stored]
        return tuple(shape)


def _freeze(attrs: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(attrs))


@dataclass(frozen=True)
class Node:
    """One operator application: op name, input and output tensor names, and attributes."""

    op: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: Mapping[str, Any] = field(default_factory=dict)
    name: str = ""

    def __post_init__(self):
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "outputs", tuple(self.outputs))
        object.__setattr__(self, "attrs", _freeze(self.attrs))

    def with_attrs(self, **changes) -> "Node":
        return replace(self, attrs={**self.attrs, **changes})

    @property
    def label(self) -> str:
        """How errors name this node."""
        return f"{self.op} '{self.name}'" if self.name else self.op


@dataclass(frozen=True)
class Graph:
    """A Micro Relay graph: tensors by name, nodes in execution order, graph inputs and outputs."""

    tensors: Mapping[str, Tensor]
    nodes: tuple[Node, ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]

    def __post_init__(self):
        object.__setattr__(self, "tensors", MappingProxyType(dict(self.tensors)))
        object.__setattr__(self, "nodes", tuple(self.nodes))
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "outputs", tuple(self.outputs))

    def type_of(self, name: str) -> TensorType:
        return self.tensors[name].type

    def constant(self, name: str) -> np.ndarray | None:
        return self.tensors[name].data

    def producers(self) -> dict[str, int]:
        """Tensor name -> index of the node that writes it."""
        return {out: i for i, node in enumerate(self.nodes) for out in node.outputs}

    def consumers(self) -> dict[str, list[int]]:
        """Tensor name -> indices of the nodes that read it, in order."""
        readers: dict[str, list[int]] = {name: [] for name in self.tensors}
        for i, node in enumerate(self.nodes):
            for name in node.inputs:
                if name and i not in readers[name]:
                    readers[name].append(i)
        return readers

    @property
    def states(self) -> tuple[str, ...]:
        """The state tensors, in tensor-table order."""
        return tuple(name for name, t in self.tensors.items() if t.is_state)

    def state_order(self) -> dict[int, set[int]]:
        """Node index -> the earlier nodes it must follow because of state, beyond the producers of its
        inputs: an assign follows every read of its state since the previous assign (and that assign), and a
        read follows the last assign of its state before it. Any order keeping these and the producers
        computes what the node list computes. A node writing an output stored in a state's storage
        (Tensor.stored_in) writes that state where it runs, as an assign would."""
        from .registry import get_op

        after: dict[int, set[int]] = {}
        readers: dict[str, list[int]] = {}  # per state: the nodes that read it since its last assign
        last_assign: dict[str, int] = {}
        for i, node in enumerate(self.nodes):
            writes = get_op(node.op).writes_state
            for k, name in enumerate(node.inputs):
                if not name or not self.tensors[name].is_state:
                    continue
                if writes and k == 0:
                    continue
                if name in last_assign:
                    after.setdefault(i, set()).add(last_assign[name])
                readers.setdefault(name, []).append(i)
            written = [node.inputs[0]] if writes else []
            written += [self.tensors[o].stored_in for o in node.outputs if self.tensors[o].stored_in]
            for state in written:
                deps = set(readers.pop(state, ())) - {i}
                if state in last_assign:
                    deps.add(last_assign[state])
                if deps:
                    after.setdefault(i, set()).update(deps)
                last_assign[state] = i
        return after

    def with_nodes(self, nodes, tensors=None) -> "Graph":
        """A new graph with these nodes, keeping only the tensors still referenced."""
        all_tensors = dict(self.tensors if tensors is None else tensors)
        used = set(self.inputs) | set(self.outputs)
        for node in nodes:
            used.update(n for n in node.inputs if n)
            used.update(node.outputs)
        kept = {name: t for name, t in all_tensors.items() if name in used}
        return Graph(kept, tuple(nodes), self.inputs, self.outputs)


def fresh_name(taken: Mapping[str, Any], base: str) -> str:
    """A tensor name not in `taken`: `base`, else `base_2`, `base_3`, ... (passes that add tensors use it)."""
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    return name
