"""First-fit placement, the step every offset planner shares.

first_fit_offset(buffer, placed):
  1. take the placed buffers whose lifetimes overlap this one's (the others may share its bytes), and the
     bytes each keeps this one out of (buffers.blocked: the whole buffer, or less for a permitted overlap
     pair: an output may start anywhere at or below offset(input) + delta, and an input placed over its
     output is kept out of the output's first -delta bytes only);
  2. sort them by start;
  3. walk the gaps between them from offset 0 upwards and return the first aligned offset where the buffer
     fits before the next one starts; if no gap fits, the aligned end of the highest one.

place_in_order(buffers, hoist): first-fit each buffer in the given order around those placed before it.
Every placement can be reached this way: taking the buffers of any plan in order of their offsets puts each
one at the same or a lower offset (an output below its input stays below it), so searching over the order
is enough to find the best plan. A permitted pair only saves bytes when its output lies below its input,
which first-fit rarely gives when the input comes first (the output would have to fit below it), so with
`hoist` = k the output of a pair is placed right before its input, and its own output before it, and so on
down the chain for up to k buffers: first-fit then puts each input at offset(output) - delta when that is
free, and the pair takes max(output, input - delta) bytes. A chain of overlapping layers descends by its
deltas, so the best depth depends on the graph: a chain of equal tensors (kws) wants the whole chain, a
MobileNet only the pair at its peak.

place_best(buffers): place_in_order with each depth of HOIST_DEPTHS (only 0 when no buffer holds a
permission); the smallest arena wins, ties to the shallower depth.
"""

from __future__ import annotations

from ..buffers import Buffer, align_up, blocked, overlap_pairs

Placed = tuple[int, int, Buffer]  # (offset, end, buffer)


def first_fit_offset(buf: Buffer, placed: "list[Placed] | PlacedByStep") -> int:
    if isinstance(placed, PlacedByStep):
        live = placed.overlapping(buf)
    else:
        live = [(o, other) for o, _, other in placed if other.overlaps_in_time(buf)]
    candidate = 0
    for start, end in sorted(blocked(buf, other, o) for o, other in live):
        candidate = align_up(candidate, buf.align)
        if candidate + buf.size <= start:
            break
        candidate = max(candidate, end)
    return align_up(candidate, buf.align)


class PlacedByStep:
    """The placed buffers indexed by step, so that step 1 looks only at those live with the new buffer
    instead of at every placed one (a long chain of short-lived buffers then places in linear time).

    A placed buffer whose lifetime overlaps [first, last] is either live at `first` or starts after it, at
    most at `last`: `live_at[first]` plus `starts_at[first + 1 .. last]` lists each such buffer exactly once."""

    def __init__(self):
        self.live_at: dict[int, list[tuple[int, Buffer]]] = {}
        self.starts_at: dict[int, list[tuple[int, Buffer]]] = {}

    def add(self, offset: int, buf: Buffer) -> None:
        entry = (offset, buf)
        self.starts_at.setdefault(buf.first, []).append(entry)
        for step in range(buf.first, buf.last + 1):
            self.live_at.setdefault(step, []).append(entry)

    def overlapping(self, buf: Buffer) -> list[tuple[int, Buffer]]:
        found = list(self.live_at.get(buf.first, ()))
        if buf.last - buf.first < len(self.starts_at):
            for step in range(buf.first + 1, buf.last + 1):
                found += self.starts_at.get(step, ())
        else:  # a long lifetime over few placed start steps
            found += [e for step, entries in self.starts_at.items() if buf.first < step <= buf.last for e in entries]
        return found


HOIST_DEPTHS = (0, 1, 2, 3, 1 << 30)


def place_in_order(buffers: list[Buffer], hoist: int = 0) -> dict[str, int]:
    output_of = {inp.name: out for out, inp, _ in overlap_pairs(buffers)}
    placed = PlacedByStep()
    offsets: dict[str, int] = {}
    for buf in buffers:
        chain = [buf]
        while len(chain) <= hoist and chain[-1].name in output_of and output_of[chain[-1].name].name not in offsets \
                and output_of[chain[-1].name] not in chain:
            chain.append(output_of[chain[-1].name])
        for b in reversed(chain):
            if b.name not in offsets:
                offset = first_fit_offset(b, placed)
                offsets[b.name] = offset
                placed.add(offset, b)
    return offsets


def arena_size(buffers: list[Buffer], offsets: dict[str, int]) -> int:
    return max((offsets[b.name] + b.size for b in buffers), default=0)


def hoist_depths(buffers: list[Buffer]) -> tuple[int, ...]:
    return HOIST_DEPTHS if any(b.overlap for b in buffers) else (0,)


def place_best(buffers: list[Buffer]) -> dict[str, int]:
    plans = [place_in_order(buffers, depth) for depth in hoist_depths(buffers)]
    return min(plans, key=lambda offsets: arena_size(buffers, offsets))
