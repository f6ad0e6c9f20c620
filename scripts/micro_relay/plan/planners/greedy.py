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


def greedy_by_size(buffers: list[Buffer]) -> dict[str, int]:
    return place_best(size_order(buffers))


def greedy_by_lifetime(buffers: list[Buffer]) -> dict[str, int]:
    return place_best(sorted(buffers, key=lambda b: (b.first, -(b.last - b.first), -b.size, b.name)))


def greedy_by_conflict(buffers: list[Buffer]) -> dict[str, int]:
    pressure = {b.name: b.size + sum(o.size for o in buffers if o is not b and o.overlaps_in_time(b)) for b in buffers}
    return place_best(sorted(buffers, key=lambda b: (-pressure[b.name], -b.size, b.name)))
