"""The state storage: where each state tensor (ir/graph.py) lives between invokes.

States are not arena buffers: every one is live for the whole program, across invokes, so the arena's
lifetimes and reuse do not apply. They are laid out one after another, in tensor-table order (deterministic),
each at a multiple of its element size and of ALIGN, in one storage of `state_bytes` bytes (aligned to
STATE_ALIGN by whoever provides it: the generated C's static buffer, or the caller's).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.graph import Graph
from .buffers import ALIGN, align_up

STATE_ALIGN = 16


@dataclass(frozen=True)
class StatePlan:
    offsets: dict[str, int] = field(default_factory=dict)  # state tensor name -> offset in the state storage
    state_bytes: int = 0

    def __bool__(self) -> bool:
        return bool(self.offsets)


def plan_state(graph: Graph) -> StatePlan:
    offsets, end = {}, 0
    for name in graph.states:
        t = graph.type_of(name)
        end = align_up(end, max(ALIGN, t.dtype.itemsize))
        offsets[name] = end
        end += t.nbytes
    return StatePlan(offsets, align_up(end, ALIGN))
