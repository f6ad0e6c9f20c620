"""Greedy offset planners: first-fit placement (first_fit.py) in one fixed order each (place_best: with
permitted overlaps, also with each pair's output hoisted before its input, the smallest arena kept).

greedy_by_size (the idea of TFLite Micro's GreedyMemoryPlanner):
  1. sort the buffers by size, largest first (ties: earlier first use, then name);
  2. first-fit each one around the buffers already placed.
  Large buffers are hardest to fit into gaps, so they go in while the arena is still empty.

greedy_by_lifetime:
  1. sort by first use (ties: longer lifetime first, then larger, then name);
  2. first-fit each one.
  Better when early, long-lived buffers (a residual's shortcut) would otherwise be pushed up by later large
  ones.

greedy_by_conflict:
  1. score each buffer by its size plus the sizes of every buffer whose lifetime overlaps it (the bytes it
     competes with);
  2. sort by score, highest first (ties: larger, then name), and first-fit each one.
  The most constrained buffers are placed first, the idea of TVM USMP's greedy_by_conflicts.
"""

from __future__ import annotations

from ..buffers import Buffer
from .first_fit import place_best


def size_order(buffers: list[Buffer]) -> list[Buffer]:
    return sorted(buffers, key=lambda b: (-b.size, b.first, b.name))


def lifetime_order(buffers: list[Buffer]) -> list[Buffer]:
    return sorted(buffers, key=lambda b: (b.first, -(b.last - b.first), -b.size, b.name))


def conflict_order(buffers: list[Buffer]) -> list[Buffer]:
    pressure = conflict_pressure(buffers)
    return sorted(buffers, key=lambda b: (-pressure[b.name], -b.size, b.name))


def greedy_by_size(buffers: list[Buffer]) -> dict[str, int]:
    return place_best(size_order(buffers))


def greedy_by_lifetime(buffers: list[Buffer]) -> dict[str, int]:
    return place_best(lifetime_order(buffers))


def conflict_pressure(buffers: list[Buffer]) -> dict[str, int]:
    """Each buffer's size plus the sizes of the others whose lifetimes overlap it (step 1).

    The buffers overlapping [first, last] are those that start at or before `last` less those that end
    before `first`, so two prefix sums over the steps give every score in linear time; a buffer overlaps
    itself, so its own size is taken off once."""
    if not buffers:
        return {}
    steps = max(max(b.last, b.first) for b in buffers) + 2
    started, ended = [0] * steps, [0] * steps
    for b in buffers:
        started[b.first] += b.size
        ended[b.last] += b.size
    for t in range(1, steps):
        started[t] += started[t - 1]
        ended[t] += ended[t - 1]
    pressure = {}
    for b in buffers:
        together = started[b.last] - (ended[b.first - 1] if b.first > 0 else 0)
        if b.first <= b.last:
            together -= b.size
        pressure[b.name] = b.size + together
    return pressure


def greedy_by_conflict(buffers: list[Buffer]) -> dict[str, int]:
    return place_best(conflict_order(buffers))


GREEDY_ORDERS = {"greedy_by_size": size_order, "greedy_by_lifetime": lifetime_order,
                 "greedy_by_conflict": conflict_order}
