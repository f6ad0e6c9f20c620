"""The debug build's arena: canaries after every buffer, and every tensor kept for the whole run.

`micro-relay compile --debug-guards` plans the arena so that an out-of-bounds write is caught at the layer that
made it, and so that the host can read every intermediate tensor after a run (micro-relay device compare):

1. every tensor keeps its own bytes for the whole run (buffers.py keep_all: no in-place result, no lagged
   overlap, every lifetime ends at the last step); a reshape still shares its input's bytes, which hold the
   same values;
2. each buffer grows by at least GUARD_BYTES: its data ends at offset + data bytes (the largest tensor it holds,
   or exactly the scratch its kernel asked for) and its canary runs from there to the buffer's aligned end, so
   a write into the alignment padding is caught too;
3. one more buffer of 4 bytes (LAYER_SLOT), live throughout, holds the step of the layer running: after an
   error the layer that failed, -1 after a successful run.

The generated invoke, before step s, writes s into the slot and fills the canaries of the buffers that start at
s; after step s it checks the canaries of every buffer live at s. Such a canary was intact after step s - 1 (it
was checked then) or was filled just before s, and only layer s ran since: when one has changed, layer s wrote
out of bounds, and invoke returns MR_ERR_GUARD with the slot naming s.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..ir.graph import Graph
from .buffers import ALIGN, SCRATCH_ALIGN, Buffer, align_up, in_arena, scratch_name

GUARD_BYTES = 8
LAYER_SLOT = "<guard layer>"


def _guard_byte(i: int) -> int:
    """crt/include/micro_relay/guard.h MR_GUARD_BYTE(i)."""
    return 0xA5 ^ ((0x3B * (i & 0xFF)) & 0xFF)


@dataclass(frozen=True)
class Canary:
    """`length` canary bytes at arena `offset`, after buffer `buffer` live from step `first` to `last`."""

    buffer: str
    offset: int
    length: int
    first: int
    last: int


def _data_bytes(graph: Graph, buf: Buffer, scratch: dict[int, int]) -> int:
    if buf.tensors:
        return max(graph.type_of(n).nbytes for n in buf.tensors)
    return next(nbytes for node, nbytes in scratch.items() if scratch_name(node) == buf.name)


def guarded_buffers(graph: Graph, buffers: list[Buffer], scratch: dict[int, int], steps: int) -> list[Buffer]:
    """Steps 2 and 3: `buffers` (built with keep_all) each grown by its canary, and the layer slot."""
    grown = [replace(b, size=align_up(_data_bytes(graph, b, scratch) + GUARD_BYTES,
                                      SCRATCH_ALIGN if not b.tensors else ALIGN))
             for b in buffers]
    return grown + [Buffer(LAYER_SLOT, 4, 0, max(steps - 1, 0), ALIGN, ())]


def canaries(graph: Graph, plan, scratch: dict[int, int]) -> list[Canary]:
    """The canary of every buffer of a guarded plan (MemoryPlan with guards), in the plan's buffer order."""
    found = []
    for buf in plan.buffers:
        if buf.name == LAYER_SLOT:
            continue
        data = _data_bytes(graph, buf, scratch)
        found.append(Canary(buf.name, plan.offsets[buf.name] + data, buf.size - data, buf.first, buf.last))
    return found


def layer_slot(plan) -> int:
    """Arena offset of the int32 naming the layer running (step 3)."""
    return plan.offsets[LAYER_SLOT]


def canary_intact(arena: bytes, canary: Canary) -> bool:
    """Whether the canary's bytes in a copy of the arena still hold the pattern (tests and tools)."""
    return all(arena[canary.offset + i] == _guard_byte(i) for i in range(canary.length))


def debug_tensors(graph: Graph, order: tuple[int, ...]) -> list[tuple[int, str]]:
    """(step, tensor) of every arena tensor a run writes, in execution order: what NAME_tensor_of(arena, k) of a
    debug build returns for k = 0, 1, ..."""
    return [(step, name) for step, index in enumerate(order) for name in graph.nodes[index].outputs
            if name and in_arena(graph, name)]
