"""branch_and_bound: a depth-first search over placement orders, exact when it finishes within its budget.

Any plan can be rebuilt by first-fitting its buffers in order of their offsets (first_fit.py), and doing
that again until nothing moves gives a plan at least as small in which each buffer, taken in order of offset
(ties by index), lands exactly where first-fit puts it. So the search only needs sequences whose first-fit
offsets never decrease:

1. Incumbent: the best greedy plan (greedy.py). If it already reaches the lower bound (the most bytes live
   at one step) it is optimal and returned at once.
2. Number the buffers largest first (ties: first use, then name). A search node is a sequence of placed
   buffers; `last` is the offset (and number) of the one placed most recently.
3. At each node compute every unplaced buffer's first-fit offset (first_fit.py, permitted overlaps
   included). Candidates are those whose offset is above `last`, or equal to it with a higher number than
   the last buffer's.
4. Bound: every later buffer goes at or above `last`, and offsets only rise as buffers are added, so the
   arena will be at least each of: the current arena; for each unplaced buffer, max(its offset, last) plus
   its size; and for each step, `last` plus the sizes of the unplaced buffers live then plus the parts of
   the placed ones live then that reach above `last`, less the bytes the permitted pairs live then may
   share (buffers.pair_saving). If the largest of these is not below the best arena found, the node is
   cut.
5. Otherwise try the candidates lowest offset first (ties: larger, then lower number), each placed at its
   first-fit offset, and recurse; a complete sequence smaller than the best becomes the best.
6. Stop when the best reaches the lower bound or when the work done (buffer pairs and step entries looked
   at, counted, not timed) exceeds `budget`; the result is never worse than the incumbent, and the same
   input always gives the same plan.
"""

from __future__ import annotations

from ..buffers import Buffer, align_up, blocked, lower_bound, overlap_pairs, pair_saving
from .first_fit import arena_size
from .greedy import greedy_by_conflict, greedy_by_lifetime, greedy_by_size, size_order

WORK_BUDGET = 400_000  # a quarter of a second of Python at worst
MAX_BUFFERS = 300  # deeper searches would need too much recursion; keep the incumbent


def branch_and_bound(buffers: list[Buffer], budget: int = WORK_BUDGET) -> dict[str, int]:
    if not buffers:
        return {}
    incumbent = None
    for planner in (greedy_by_size, greedy_by_conflict, greedy_by_lifetime):
        offsets = planner(buffers)
        if incumbent is None or arena_size(buffers, offsets) < arena_size(buffers, incumbent):
            incumbent = offsets
    goal = lower_bound(buffers)
    if arena_size(buffers, incumbent) <= goal or len(buffers) > MAX_BUFFERS:
        return incumbent
    return _Search(size_order(buffers), incumbent, goal, budget).run()


class _Search:
    def __init__(self, bufs: list[Buffer], incumbent: dict[str, int], goal: int, budget: int):
        self.bufs = bufs
        self.n = len(bufs)
        self.size = [b.size for b in bufs]
        self.conflicts = [[j for j, o in enumerate(bufs) if j != i and o.overlaps_in_time(b)]
                          for i, b in enumerate(bufs)]
        steps = max(b.last for b in bufs) + 1
        self.live_at = [[i for i, b in enumerate(bufs) if b.first <= t <= b.last] for t in range(steps)]
        self.bound_work = sum(len(live) for live in self.live_at)
        self.unplaced_live = [sum(self.size[i] for i in live) for live in self.live_at]
        self.shared = [0] * steps  # bytes permitted pairs may share at each step
        for out, inp, d in overlap_pairs(bufs):
            for t in range(max(out.first, inp.first), min(out.last, inp.last) + 1):
                self.shared[t] += pair_saving(out, inp, d)
        self.offset = [-1] * self.n
        self.best = [incumbent[b.name] for b in bufs]
        self.best_arena = arena_size(bufs, incumbent)
        self.goal = goal
        self.budget = budget
        self.work = 0

    def run(self) -> dict[str, int]:
        self._visit(0, -1, 0, self.n)
        return {b.name: self.best[i] for i, b in enumerate(self.bufs)}

    def _first_fit(self, i: int) -> int:
        size, align, buf = self.size[i], self.bufs[i].align, self.bufs[i]
        candidate = 0
        offset = self.offset
        placed = sorted(blocked(buf, self.bufs[j], offset[j]) for j in self.conflicts[i] if offset[j] >= 0)
        for start, end in placed:
            candidate = align_up(candidate, align)
            if candidate + size <= start:
                break
            candidate = max(candidate, end)
        return align_up(candidate, align)

    def _bound(self, last: int, arena: int, fits: list[tuple[int, int]]) -> int:
        bound = arena
        for fit, i in fits:
            bound = max(bound, align_up(max(fit, last), self.bufs[i].align) + self.size[i])
        for t, live in enumerate(self.live_at):
            above = sum(max(0, self.offset[j] + self.size[j] - last) for j in live if self.offset[j] >= 0)
            bound = max(bound, last + self.unplaced_live[t] + above - self.shared[t])
        return bound

    def _visit(self, last: int, last_index: int, arena: int, unplaced: int) -> None:
        if unplaced == 0:
            if arena < self.best_arena:
                self.best_arena, self.best = arena, list(self.offset)
            return
        if self.work > self.budget:
            return
        fits = [(self._first_fit(i), i) for i in range(self.n) if self.offset[i] < 0]
        self.work += self.bound_work + sum(len(self.conflicts[i]) + 1 for _, i in fits)
        if self._bound(last, arena, fits) >= self.best_arena:
            return
        candidates = sorted((fit, -self.size[i], i) for fit, i in fits
                            if fit > last or (fit == last and i > last_index))
        for fit, _, i in candidates:
            buf = self.bufs[i]
            self.offset[i] = fit
            for t in range(buf.first, buf.last + 1):
                self.unplaced_live[t] -= buf.size
            self._visit(fit, i, max(arena, fit + buf.size), unplaced - 1)
            for t in range(buf.first, buf.last + 1):
                self.unplaced_live[t] += buf.size
            self.offset[i] = -1
            if self.best_arena <= self.goal or self.work > self.budget:
                return
