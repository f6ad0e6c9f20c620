"""Offset planners: place buffers with known lifetimes in one arena so that no two live buffers overlap,
except a window kernel's output over its dying input within the permitted delta (buffers.py step 4).

Every planner has the same interface: a function from a list of Buffer to {buffer name: offset}, registered
by name in PLANNERS. `plan_offsets` runs the named ones (all by default) in the order of PLANNERS, checks
each plan (check.py), and keeps the smallest arena; ties keep the earlier planner. A plan that reaches the
lower bound cannot be beaten, so the planners after it are not run. The order is cheapest first:
greedy_by_size, greedy_by_lifetime, greedy_by_conflict (greedy.py), then branch_and_bound
(branch_and_bound.py), which starts from the best greedy plan and searches for a smaller one; past its
MAX_BUFFERS it returns that plan as is, so after the three greedy planners it is not run then.
"""

from __future__ import annotations

from typing import Callable, Iterator

from ..buffers import Buffer, lower_bound
from ..check import check_plan
from .branch_and_bound import MAX_BUFFERS, branch_and_bound
from .first_fit import arena_size, first_fit_offset, hoist_depths, place_best, place_in_order
from .greedy import GREEDY_ORDERS, greedy_by_conflict, greedy_by_lifetime, greedy_by_size

Planner = Callable[[list[Buffer]], dict[str, int]]

PLANNERS: dict[str, Planner] = {
    "greedy_by_size": greedy_by_size,
    "greedy_by_lifetime": greedy_by_lifetime,
    "greedy_by_conflict": greedy_by_conflict,
    "branch_and_bound": branch_and_bound,
}


def plan_offsets(buffers: list[Buffer], planners: tuple[str, ...] | None = None) -> tuple[str, dict[str, int]]:
    """Run the named planners and keep the smallest arena; returns (planner name, offsets)."""
    names = tuple(PLANNERS) if planners is None else planners
    unknown = [n for n in names if n not in PLANNERS]
    if unknown or not names:
        raise ValueError(f"unknown memory planner(s) {unknown}; known: {', '.join(PLANNERS)}")
    goal = lower_bound(buffers)
    best: tuple[int, str, dict[str, int]] | None = None
    ran = set()
    for name in (n for n in PLANNERS if n in names):
        if name == "branch_and_bound" and len(buffers) > MAX_BUFFERS and ran >= set(GREEDY_ORDERS):
            break  # it would return the best greedy plan, which cannot beat itself
        ran.add(name)
        offsets = PLANNERS[name](buffers)
        check_plan(buffers, offsets)
        size = arena_size(buffers, offsets)
        if best is None or size < best[0]:
            best = (size, name, offsets)
        if best[0] <= goal:
            break
    return best[1], best[2]


def placement_passes(name: str, buffers: list[Buffer]) -> Iterator[dict[str, int]] | None:
    """The first-fit passes a greedy planner keeps the smallest of, one at a time (None for the others): a
    caller that only asks whether some plan fits can stop at the first pass that does."""
    if name not in GREEDY_ORDERS:
        return None
    ordered = GREEDY_ORDERS[name](buffers)
    return (place_in_order(ordered, depth) for depth in hoist_depths(ordered))


__all__ = ["PLANNERS", "placement_passes", "Planner", "arena_size", "first_fit_offset", "place_best", "place_in_order", "plan_offsets"]
