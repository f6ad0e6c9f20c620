"""Buffers and lifetimes: what the planners place.

A buffer is a run of arena bytes with a lifetime [first, last] in steps of the execution order (inclusive).
Tensors that share bytes form one buffer: a reshape's output is its input reinterpreted (alias), and an
in-place op's output takes the bytes of an input that dies at that op. Graph inputs live from step 0 to their
last reader (like TFLite Micro, invoke may overwrite them: refill before each call); graph outputs live to
the end.
Scratch a kernel needs is a buffer live at its one step. Constants live in flash and are not planned.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.graph import Graph
from ..ir.registry import get_op

ALIGN = 4


@dataclass(frozen=True)
class Buffer:
    """Planner input: a name (the first tensor it holds), size in bytes, lifetime and alignment."""

    name: str
    size: int
    first: int
    last: int
    align: int = ALIGN
    tensors: tuple[str, ...] = ()

    def overlaps_in_time(self, other: "Buffer") -> bool:
        return self.first <= other.last and other.first <= self.last


def _align_up(value: int, align: int) -> int:
    return (value + align - 1) // align * align


def scratch_name(step: int) -> str:
    return f"<scratch {step}>"


def build_buffers(graph: Graph, order: tuple[int, ...], scratch: dict[int, int]) -> list[Buffer]:
    """Buffers for executing `graph.nodes` in `order` (node indices); `scratch` maps node index -> bytes."""
    step_of = {node_index: step for step, node_index in enumerate(order)}
    end = len(order) - 1 if order else 0
    group: dict[str, str] = {}  # tensor -> root tensor of its buffer

    def root(name: str) -> str:
        while group.get(name, name) != name:
            name = group[name]
        return name

    last_read: dict[str, int] = {}
    for node_index in order:
        for name in graph.nodes[node_index].inputs:
            if name:
                last_read[name] = step_of[node_index]
    for node_index in order:
        node = graph.nodes[node_index]
        op = get_op(node.op)
        if op.alias and node.inputs and not graph.tensors[node.inputs[0]].is_constant:
            group[node.outputs[0]] = root(node.inputs[0])
    members: dict[str, list[str]] = {}
    for name, tensor in graph.tensors.items():
        if tensor.is_constant:
            continue
        members.setdefault(root(name), []).append(name)
    buffers = []
    for root_name, names in members.items():
        firsts, lasts = [], []
        for name in names:
            producers = [step_of[i] for i, n in enumerate(graph.nodes) if name in n.outputs and i in step_of]
            firsts.append(0 if name in graph.inputs else min(producers, default=0))
            lasts.append(end if name in graph.outputs else last_read.get(name, firsts[-1]))
        t = graph.type_of(root_name)
        size = max(graph.type_of(n).nbytes for n in names)
        buffers.append(Buffer(root_name, _align_up(size, ALIGN), min(firsts), max(lasts), max(ALIGN, t.dtype.itemsize), tuple(names)))
    for node_index, nbytes in sorted(scratch.items()):
        if nbytes > 0:
            step = step_of[node_index]
            buffers.append(Buffer(scratch_name(node_index), _align_up(nbytes, 8), step, step, 8, ()))
    return buffers


def lower_bound(buffers: list[Buffer]) -> int:
    """The largest total size of buffers live at one step: no placement can do better in this order."""
    if not buffers:
        return 0
    steps = max(b.last for b in buffers) + 1
    return max(sum(b.size for b in buffers if b.first <= s <= b.last) for s in range(steps))
