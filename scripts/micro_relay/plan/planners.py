"""Offset planners: place buffers with known lifetimes in one arena so that no two live buffers overlap.

Every planner takes the same input (a list of Buffer) and returns {buffer name: offset}. `plan_offsets`
runs them all and keeps the smallest arena, ties broken by planner name order, so the result is
deterministic.

greedy_by_size (TFLite Micro's GreedyMemoryPlanner idea):
  1. sort buffers by size, largest first (ties: earlier first use, then name);
  2. for each, collect the already placed buffers whose lifetimes overlap it, sorted by offset;
  3. walk the gaps between them from offset 0 and take the first gap the buffer fits (aligned);
     if none, place it after the last one.
greedy_by_lifetime: the same placement, taking buffers in order of first use (longest first on ties):
  better when early, long-lived buffers would otherwise be pushed up by later large ones.
greedy_by_conflict: the same placement, taking the buffers with the most bytes of lifetime-overlapping
  neighbours first (the most constrained first).
best_fit_search: tries the placement from many deterministic orders (the three above plus the size order
  with each of the largest buffers moved to the front) and, for up to 9 buffers, all orders.
"""

from __future__ import annotations

import itertools

from .buffers import Buffer


def _align_up(value: int, align: int) -> int:
    return (value + align - 1) // align * align


def place_in_order(buffers: list[Buffer]) -> dict[str, int]:
    """First-fit placement of buffers in the given order, around those already placed."""
    placed: list[tuple[int, int, Buffer]] = []  # (offset, end, buffer)
    offsets: dict[str, int] = {}
    for buf in buffers:
        conflicts = sorted((o, e) for o, e, other in placed if other.overlaps_in_time(buf))
        candidate = 0
        for start, end in conflicts:
            candidate = _align_up(candidate, buf.align)
            if candidate + buf.size <= start:
                break
            candidate = max(candidate, end)
        candidate = _align_up(candidate, buf.align)
        offsets[buf.name] = candidate
        placed.append((candidate, candidate + buf.size, buf))
    return offsets


def arena_size(buffers: list[Buffer], offsets: dict[str, int]) -> int:
    return max((offsets[b.name] + b.size for b in buffers), default=0)


def greedy_by_size(buffers: list[Buffer]) -> dict[str, int]:
    return place_in_order(sorted(buffers, key=lambda b: (-b.size, b.first, b.name)))


def greedy_by_lifetime(buffers: list[Buffer]) -> dict[str, int]:
    return place_in_order(sorted(buffers, key=lambda b: (b.first, -(b.last - b.first), -b.size, b.name)))


def greedy_by_conflict(buffers: list[Buffer]) -> dict[str, int]:
    def pressure(b: Buffer) -> int:
        return sum(o.size for o in buffers if o is not b and o.overlaps_in_time(b)) + b.size

    return place_in_order(sorted(buffers, key=lambda b: (-pressure(b), -b.size, b.name)))


def best_fit_search(buffers: list[Buffer]) -> dict[str, int]:
    by_size = sorted(buffers, key=lambda b: (-b.size, b.first, b.name))
    orders = [by_size]
    for i in range(1, min(len(by_size), 16)):
        orders.append([by_size[i]] + by_size[:i] + by_size[i + 1:])
    if len(buffers) <= 9:
        orders.extend(list(p) for p in itertools.permutations(by_size))
    best, best_size = None, None
    for order in orders:
        offsets = place_in_order(order)
        size = arena_size(buffers, offsets)
        if best_size is None or size < best_size:
            best, best_size = offsets, size
    return best if best is not None else {}


PLANNERS = {
    "best_fit_search": best_fit_search,
    "greedy_by_conflict": greedy_by_conflict,
    "greedy_by_lifetime": greedy_by_lifetime,
    "greedy_by_size": greedy_by_size,
}


def check_no_overlap(buffers: list[Buffer], offsets: dict[str, int]) -> None:
    """Raise AssertionError if two buffers live at the same step share a byte, or one is misaligned."""
    for a, b in itertools.combinations(buffers, 2):
        if a.overlaps_in_time(b):
            a0, b0 = offsets[a.name], offsets[b.name]
            if a0 < b0 + b.size and b0 < a0 + a.size:
                raise AssertionError(f"memory plan overlap: {a.name} [{a0}, {a0 + a.size}) and {b.name} [{b0}, {b0 + b.size})")
    for buf in buffers:
        if offsets[buf.name] % buf.align:
            raise AssertionError(f"memory plan misaligns {buf.name} at {offsets[buf.name]}")


def plan_offsets(buffers: list[Buffer], planners: tuple[str, ...] | None = None) -> tuple[str, dict[str, int]]:
    """Run the named planners (all by default) and keep the smallest arena; returns (planner, offsets)."""
    best = None
    for name in planners or tuple(PLANNERS):
        offsets = PLANNERS[name](buffers)
        check_no_overlap(buffers, offsets)
        size = arena_size(buffers, offsets)
        if best is None or size < best[0]:
            best = (size, name, offsets)
    return (best[1], best[2]) if best else ("none", {})
