"""The plan check run before emission: a plan is only emitted if it is a valid placement.

check_plan(buffers, offsets, arena):
  1. every buffer has an offset, and no offset is named for a buffer that does not exist;
  2. every offset is non-negative and a multiple of the buffer's alignment;
  3. every buffer ends inside the arena (when its size is given);
  4. every overlap permission (buffers.py, step 4) names another buffer of the plan whose lifetime ends at
     the step where the holder's begins, so the two are live together at that one step only: the step of the
     kernel whose access pattern the delta describes;
  5. no two buffers whose lifetimes overlap share a byte, unless one holds a permission on the other and
     offset(holder) - offset(other) <= its delta: sweep the buffers by offset, keeping those whose bytes
     reach past the current offset, and compare lifetimes only among those (at most n^2 pairs, usually far
     fewer; a sweep step by step first tells whether there is anything to find, _may_clash).
Any failure raises AssertionError naming the buffers: a planner bug must never reach the generated C.
"""

from __future__ import annotations

from .buffers import Buffer, permitted


def check_plan(buffers: list[Buffer], offsets: dict[str, int], arena: int | None = None) -> None:
    names = {b.name for b in buffers}
    missing = sorted(names - set(offsets))
    extra = sorted(set(offsets) - names)
    if missing or extra or len(names) != len(buffers):
        raise AssertionError(f"memory plan does not match its buffers: missing {missing}, "
                             f"unknown {extra}")
    for buf in buffers:
        offset = offsets[buf.name]
        if offset < 0 or offset % buf.align:
            raise AssertionError(f"memory plan puts {buf.name} at {offset}, not a multiple of {buf.align}")
        if arena is not None and offset + buf.size > arena:
            raise AssertionError(f"memory plan puts {buf.name} at [{offset}, {offset + buf.size}) "
                                 f"past the arena of {arena}")
    by_name = {b.name: b for b in buffers}
    for buf in buffers:
        for name, delta in buf.overlap:
            other = by_name.get(name)
            if other is None or other is buf or other.last != buf.first:
                raise AssertionError(f"memory plan lets {buf.name} (steps {buf.first}-{buf.last}) overlap "
                                     f"{name}, which is not a buffer whose lifetime ends at step {buf.first}")
    if not _may_clash(buffers, offsets):
        return
    open_: list[Buffer] = []  # buffers whose bytes reach past the current offset
    for buf in sorted((b for b in buffers if b.size > 0), key=lambda b: (offsets[b.name], b.name)):
        start = offsets[buf.name]
        open_ = [o for o in open_ if offsets[o.name] + o.size > start]
        for other in open_:
            if other.overlaps_in_time(buf) and not permitted(other, offsets[other.name], buf, start):
                o = offsets[other.name]
                raise AssertionError(f"memory plan overlap: {other.name} [{o}, {o + other.size}) steps "
                                     f"{other.first}-{other.last} and {buf.name} [{start}, {start + buf.size}) "
                                     f"steps {buf.first}-{buf.last}")
        open_.append(buf)


def _may_clash(buffers: list[Buffer], offsets: dict[str, int]) -> bool:
    """Whether step 5 can find a clash: the same sweep by offset, but step by step among the buffers live at
    that step only, so a long chain of short-lived buffers in a small arena is not compared pair by pair.
    Every pair live together is live together at the later of their first steps, so looking at each step's
    buffers that start there against all buffers live there misses no pair. Step 5 then runs in full only
    when this finds one, to name the clash as it always has."""
    live_at: dict[int, list[Buffer]] = {}
    for b in buffers:
        if b.size > 0:
            for t in range(b.first, b.last + 1):
                live_at.setdefault(t, []).append(b)
    for t, live in live_at.items():
        open_: list[Buffer] = []
        for buf in sorted(live, key=lambda b: (offsets[b.name], b.name)):
            start = offsets[buf.name]
            open_ = [o for o in open_ if offsets[o.name] + o.size > start]
            for other in open_:
                if (buf.first == t or other.first == t) and not permitted(other, offsets[other.name], buf, start):
                    return True
            open_.append(buf)
    return False
