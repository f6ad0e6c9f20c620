"""First-fit placement, the step every offset planner shares.

first_fit_offset(buffer, placed):
  1. take the placed buffers whose lifetimes overlap this one's (the others may share its bytes);
  2. sort them by offset;
  3. walk the gaps between them from offset 0 upwards and return the first aligned offset where the buffer
     fits before the next one starts; if no gap fits, the aligned end of the highest one.

place_in_order(buffers): first-fit each buffer in the given order around those placed before it. Every
placement can be reached this way: taking the buffers of any plan in order of their offsets puts each one
at the same or a lower offset, so searching over the order is enough to find the best plan.
"""

from __future__ import annotations

from ..buffers import Buffer, align_up

Placed = tuple[int, int, Buffer]  # (offset, end, buffer)


def first_fit_offset(buf: Buffer, placed: list[Placed]) -> int:
    candidate = 0
    for start, end in sorted((o, e) for o, e, other in placed if other.overlaps_in_time(buf)):
        candidate = align_up(candidate, buf.align)
        if candidate + buf.size <= start:
            break
        candidate = max(candidate, end)
    return align_up(candidate, buf.align)


def place_in_order(buffers: list[Buffer]) -> dict[str, int]:
    placed: list[Placed] = []
    offsets: dict[str, int] = {}
    for buf in buffers:
        offset = first_fit_offset(buf, placed)
        offsets[buf.name] = offset
        placed.append((offset, offset + buf.size, buf))
    return offsets


def arena_size(buffers: list[Buffer], offsets: dict[str, int]) -> int:
    return max((offsets[b.name] + b.size for b in buffers), default=0)
