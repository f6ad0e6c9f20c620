"""The debug build's plan (plan/guards.py) on every named graph shape: every tensor keeps its bytes to the end,
every buffer is followed by a canary of at least GUARD_BYTES that no buffer live with it may touch, and the
layer slot lives throughout."""

from __future__ import annotations

import pytest

from micro_relay.lower import as_lowered
from micro_relay.plan.buffers import Buffer, build_buffers
from micro_relay.plan.guards import GUARD_BYTES, LAYER_SLOT, canaries, layer_slot
from micro_relay.plan.memory_plan import plan_memory

from . import shapes
from .graphs import INPLACE_UNARY, LAGGED, Builder


def _bytes_of(buf: Buffer, plan) -> range:
    return range(plan.offsets[buf.name], plan.offsets[buf.name] + buf.size)


@pytest.mark.parametrize("shape", sorted(shapes.SHAPES))
def test_canaries_are_disjoint_from_every_live_buffer(shape):
    graph = shapes.SHAPES[shape][0]()
    plan = plan_memory(graph, guards=True)
    scratch = as_lowered(graph).scratch()
    steps = len(plan.order)
    found = canaries(graph, plan, scratch)
    assert len(found) == len(plan.buffers) - 1  # all but the slot
    for canary in found:
        assert canary.length >= GUARD_BYTES
        owner = next(b for b in plan.buffers if b.name == canary.buffer)
        # the canary ends the buffer: from its data's end to the buffer's end
        assert canary.offset + canary.length == plan.offsets[owner.name] + owner.size
        data = max((graph.type_of(t).nbytes for t in owner.tensors), default=None)
        if data is not None:
            assert canary.offset == plan.offsets[owner.name] + data
            assert owner.last == steps - 1  # kept for the whole run
        for other in plan.buffers:
            if other is owner or not other.overlaps_in_time(owner):
                continue
            assert not set(range(canary.offset, canary.offset + canary.length)) & set(_bytes_of(other, plan)), \
                (canary, other)
    slot = next(b for b in plan.buffers if b.name == LAYER_SLOT)
    assert (slot.first, slot.last, slot.size) == (0, steps - 1, 4) and layer_slot(plan) % 4 == 0


def test_no_tensor_gives_its_bytes_away():
    """
        in(100) ─► ip0 ─► a(100) ─► L1 (delta -40) ─► out(100)
    The release plan puts a over in (in place) and lets out start 40 bytes below a; the debug plan keeps the
    three apart, so each value can be read after the run.
    """
    b = Builder()
    x = b.input("in", 100)
    a = b.node(INPLACE_UNARY, [x], "a", 100)
    graph = b.graph(b.node(LAGGED, [a], "out", 100, delta=-40))
    release = build_buffers(graph, (0, 1), {}, None)
    assert any(len(buf.tensors) > 1 or buf.overlap for buf in release)
    debug = build_buffers(graph, (0, 1), {}, None, keep_all=True)
    assert sorted(buf.tensors for buf in debug) == [("a",), ("in",), ("out",)]
    assert all(buf.last == 1 and not buf.overlap for buf in debug)
    plan = plan_memory(graph, guards=True)
    ranges = sorted((plan.offsets[buf.name], plan.offsets[buf.name] + buf.size) for buf in plan.buffers)
    assert all(end <= start for (_, end), (start, _) in zip(ranges, ranges[1:]))


def test_release_plan_has_no_guard():
    graph = shapes.linear_chain()
    plan = plan_memory(graph)
    assert not plan.guards and all(b.name != LAYER_SLOT for b in plan.buffers)
    assert plan.arena_bytes == shapes.SHAPES["linear_chain"][1]
