"""The graph: named tensors and one flat list of nodes in execution order.

There is no let, no closure, no control flow and no tuple: a node reads tensors by name and writes tensors
by name, every tensor is written once (by a node, or it is a graph input or a constant), and the node list is
a valid execution order. Graphs are values: passes build new graphs with `replace`, never mutate one.
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

    @property
    def is_constant(self) -> bool:
        return self.data is not None

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
