"""Offset planners on hand-made lifetimes (Buffer lists), with exact expected offsets worked out by hand,
and branch_and_bound against an exhaustive search."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from micro_relay.plan.buffers import Buffer, lower_bound
from micro_relay.plan.check import check_plan
from micro_relay.plan.planners import PLANNERS, arena_size, place_in_order, plan_offsets
from micro_relay.plan.planners.branch_and_bound import branch_and_bound

# Steps:   0    1    2    3
#   A   [1000 1000]               A: 1000 B, steps 0-1
#   B        [500  500]           B:  500 B, steps 1-2
#   C             [600  600]      C:  600 B, steps 2-3
#   D   [400  400  400  400]      D:  400 B, steps 0-3
# Live: 1400, 1900, 1500, 1000: lower bound 1900 (A, B and D at step 1).
FOUR = [Buffer("A", 1000, 0, 1), Buffer("B", 500, 1, 2), Buffer("C", 600, 2, 3), Buffer("D", 400, 0, 3)]


@pytest.mark.parametrize("planner, offsets", [
    # largest first: A 0; C (never meets A) 0; B meets A and C: 1000; D meets all: 1500.
    ("greedy_by_size", {"A": 0, "C": 0, "B": 1000, "D": 1500}),
    # by first use, longest first: D 0; A 400; B above D and A: 1400; C meets D and B: the gap [400,1400).
    ("greedy_by_lifetime", {"D": 0, "A": 400, "B": 1400, "C": 400}),
    # by bytes competed with: B 500+1000+600+400 = 2500, D 400+1000+500+600 = 2500 (B larger), A 1900,
    # C 1500. B 0; D 500; A above B and D: 900; C meets B and D: 900.
    ("greedy_by_conflict", {"B": 0, "D": 500, "A": 900, "C": 900}),
])
def test_greedy_planners_place_by_hand(planner, offsets):
    assert PLANNERS[planner](FOUR) == offsets
    assert arena_size(FOUR, offsets) == 1900 == lower_bound(FOUR)


# Steps:   0    1    2    3
#   A                  [400]      A: 400 B, step 3
#   B             [100  100]      B: 100 B, steps 2-3
#   C   [100  100  100]           C: 100 B, steps 0-2
#   D   [400]                     D: 400 B, step 0
# Live: 500, 100, 200, 500: lower bound 500. The two small buffers must sit at opposite ends, so that D and
# A each find 400 free bytes next to them; every greedy order puts them next to each other:
#   greedy_by_size (D, A, C, B): D 0, A 0, C 400, B (meets A and C) 500 -> 600;
#   greedy_by_lifetime (C, D, B, A): C 0, D 100, B 100, A (meets B) 200 -> 600;
#   greedy_by_conflict (B, C, A, D; 600, 600, 500, 500): B 0, C 100, A 100, D (meets C) 200 -> 600.
TRAP = [Buffer("A", 400, 3, 3), Buffer("B", 100, 2, 3), Buffer("C", 100, 0, 2), Buffer("D", 400, 0, 0)]


@pytest.mark.parametrize("planner", ["greedy_by_size", "greedy_by_lifetime", "greedy_by_conflict"])
def test_greedy_planners_miss_the_trap(planner):
    assert arena_size(TRAP, PLANNERS[planner](TRAP)) == 600


def test_branch_and_bound_solves_the_trap():
    """Numbered largest first (D, A, C, B), the search tries D 0, then A 0 (C and B then meet at 400: 600,
    cut by the bound), then B 0, A 100 (its first fit above B), C 400: 500, the lower bound, so it stops."""
    offsets = branch_and_bound(TRAP)
    check_plan(TRAP, offsets)
    assert offsets == {"D": 0, "B": 0, "A": 100, "C": 400}
    assert arena_size(TRAP, offsets) == 500


def test_branch_and_bound_without_budget_keeps_the_best_greedy_plan():
    """With no search budget the incumbent is returned: the first greedy plan of 600 (greedy_by_size)."""
    assert branch_and_bound(TRAP, budget=0) == {"D": 0, "A": 0, "C": 400, "B": 500}


def test_plan_offsets_keeps_the_smallest_arena():
    assert plan_offsets(TRAP) == ("branch_and_bound", {"D": 0, "B": 0, "A": 100, "C": 400})


def test_plan_offsets_ties_go_to_the_earlier_planner():
    """On FOUR every planner reaches 1900; greedy_by_size comes first in PLANNERS and wins the tie, whatever
    order the names are given in."""
    assert plan_offsets(FOUR, ("greedy_by_conflict", "greedy_by_size"))[0] == "greedy_by_size"
    assert plan_offsets(FOUR) == ("greedy_by_size", {"A": 0, "C": 0, "B": 1000, "D": 1500})


def test_plan_offsets_rejects_unknown_planner():
    with pytest.raises(ValueError, match="no_such_planner"):
        plan_offsets(FOUR, ("no_such_planner",))


def test_alignment_is_respected():
    """A 6-byte buffer placed at 0 first pushes an 8-aligned one (live at the same step) from 6 to 8: 24.
    Every planner places the larger one first here (size, lifetime and conflict orders all put s ahead):
    s at 0, a at 16, 22 bytes, the lower bound."""
    buffers = [Buffer("a", 6, 0, 0, 2), Buffer("s", 16, 0, 0, 8)]
    assert place_in_order(buffers) == {"a": 0, "s": 8}
    for planner in PLANNERS.values():
        assert planner(buffers) == {"s": 0, "a": 16}


def test_empty_input():
    for planner in PLANNERS.values():
        assert planner([]) == {}
    assert lower_bound([]) == 0


@st.composite
def buffer_sets(draw, max_size=6, sizes=(0, 4, 8, 12, 20, 32, 64), aligns=(4, 8)):
    """Random lifetimes; some buffers hold an overlap permission on one whose lifetime ends where theirs
    begins (the shape buffers.build_buffers gives a window kernel's output and its dying input)."""
    n = draw(st.integers(1, max_size))
    buffers = []
    for i in range(n):
        first = draw(st.integers(0, 4))
        last = draw(st.integers(first, 5))
        align = draw(st.sampled_from(aligns))
        buffers.append(Buffer(f"b{i}", draw(st.sampled_from(sizes)), first, last, align))
    targeted = set()
    for i, buf in enumerate(buffers):
        inputs = [o for o in buffers if o is not buf and o.last == buf.first and o.name not in targeted]
        if inputs and draw(st.booleans()):
            inp = draw(st.sampled_from(inputs))
            targeted.add(inp.name)
            delta = max(-buf.size, draw(st.sampled_from((-4, -8, -12, -20))))
            buffers[i] = Buffer(buf.name, buf.size, buf.first, buf.last, buf.align, (), ((inp.name, delta),))
    return buffers


@given(buffer_sets())
def test_branch_and_bound_is_optimal(buffers):
    """Exhaustive: first-fit over every order of the buffers reaches the best plan (first_fit.py)."""
    best = min(arena_size(buffers, place_in_order(list(p))) for p in itertools.permutations(buffers))
    offsets = branch_and_bound(buffers, budget=10**9)
    check_plan(buffers, offsets)
    assert arena_size(buffers, offsets) == best


@given(buffer_sets(max_size=3, sizes=(4, 8, 12, 20), aligns=(4,)))
def test_first_fit_orders_reach_the_true_optimum(buffers):
    """Every offset (multiples of 4) of up to three buffers against first-fit over every order: permitted
    overlaps keep first-fit's claim that the best plan is reachable (first_fit.py)."""
    best_fit = min(arena_size(buffers, place_in_order(list(p))) for p in itertools.permutations(buffers))
    top = sum(b.size for b in buffers)
    best = top
    for offsets in itertools.product(range(0, top + 1, 4), repeat=len(buffers)):
        plan = {b.name: o for b, o in zip(buffers, offsets)}
        size = arena_size(buffers, plan)
        if size < best:
            try:
                check_plan(buffers, plan)
            except AssertionError:
                continue
            best = size
    assert best_fit == best >= lower_bound(buffers)


@given(buffer_sets(max_size=12))
def test_every_planner_gives_a_valid_plan(buffers):
    for planner in PLANNERS.values():
        offsets = planner(buffers)
        check_plan(buffers, offsets)
        assert arena_size(buffers, offsets) >= lower_bound(buffers)


# Steps:   0    1    2
#   X   [800]               X: 800 B, step 0
#   Y   [800  800]          Y: 800 B, steps 0-1, may start 300 below X (offset(Y) - offset(X) <= -300)
#   Z        [800  800]     Z: 800 B, steps 1-2, may start 200 below Y
# Live, less what the pairs may share: 0: 1600 - 500 = 1100, 1: 1600 - 600 = 1000, 2: 800. Bound 1100.
CHAIN = [Buffer("X", 800, 0, 0), Buffer("Y", 800, 0, 1, overlap=(("X", -300),)),
         Buffer("Z", 800, 1, 2, overlap=(("Y", -200),))]


def test_lower_bound_takes_off_what_pairs_may_share():
    assert lower_bound(CHAIN) == 1100


@pytest.mark.parametrize("hoist, offsets", [
    # in the given order: X 0; Y cannot start 300 below it: 800; Z cannot start 200 below Y: 0 (X is dead).
    (0, {"X": 0, "Y": 800, "Z": 0}),
    # one level: Y before X (Y 0, X 300 above it); Z then cannot go 200 below Y: 800 -> 1600.
    (1, {"Y": 0, "X": 300, "Z": 800}),
    # the whole chain: Z 0, Y 200 above it, X 300 above Y: 1300.
    (2, {"Z": 0, "Y": 200, "X": 500}),
])
def test_hoisting_places_outputs_before_their_inputs(hoist, offsets):
    assert place_in_order(CHAIN, hoist) == offsets
    check_plan(CHAIN, offsets)


def test_planners_descend_the_chain():
    """Every greedy planner tries every hoisting depth and keeps the 1300-byte plan. It is optimal: Y must
    sit 300 below X or apart from it (1600), and Z 200 below Y or apart from it (1600), so 800 + 300 + 200;
    branch_and_bound proves it (the lower bound, 1100, is not reached)."""
    for planner in PLANNERS.values():
        offsets = planner(CHAIN)
        check_plan(CHAIN, offsets)
        assert arena_size(CHAIN, offsets) == 1300
