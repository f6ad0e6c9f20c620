"""Room: faster kernels in the arena the model needs anyway.

Some kernels run faster with more scratch (Kernel.variants, kernels/: a convolution's larger tiles extend each
filter fewer times). Scratch lives only while its node runs, and at most steps the arena has bytes no live
buffer uses, so there the faster kernel costs no RAM. use_room(lowered) chooses the variants (kernel options):
  1. plan the graph as given: its arena A is the budget, which never grows;
  2. the candidates, nodes with variants, go largest estimated saving first (the cost model's instructions,
     target/cost_model.py; nodes without an estimate after the others, in graph order);
  3. for each candidate, its variants fastest first: with it (and the variants kept so far) the bytes live at
     some step must not exceed A (the lower bound, a quick test), and the buffers placed in the order that won
     step 1 by the greedy planners (and the branch-and-bound search, if it won step 1) must fit in A; the
     first variant that passes is kept, else the node keeps its default;
  4. a kept variant that makes its node call another runtime function (KernelPlan.entry) is dropped again
     when some node still calls the function it left: the model would link both, flash for speed;
  5. the lowering with every kept variant (the nodes' kernel options and plans, so the report, the emitter and
     the overlap checks all see the same kernel). The compiler plans it again over every order and planner,
     which can only match or beat the order of step 3: the arena stays at most A (dropping a variant only
     frees bytes).
  6. each test places the whole graph, so testing every candidate costs candidates x buffers, quadratic in a
     long chain; once the tests have placed ROOM_WORK_BUDGET buffers in all, the candidates not yet tried
     (the smallest savings) keep their default kernel, and the report's note says so.
A node lowered with options already (a test, a tool) is left alone: its kernel offers no variants then.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.graph import Graph
from ..lower import Lowered, LoweredNode, as_lowered
from .buffers import ALIGN, build_buffers, lower_bound, node_overlap, scratch_buffers
from .memory_plan import plan_memory
from .orders import ORDERS, LiveBytes
from .planners import PLANNERS, arena_size, placement_passes

# Step 6: the most work (buffers placed, summed over every test) the search may spend. Each test places the
# whole graph, so testing every candidate costs candidates x buffers; this bound is far above what the
# models we have need (person_detect: 12,760 in 29 tests; a chain of 1,000 conv, depthwise, add and relu
# layers: 250,250, every candidate tried) and keeps a chain of 3,000 to 134 tests.
ROOM_WORK_BUDGET = 400_000


@dataclass(frozen=True)
class RoomChoice:
    """What use_room did for one node: the variant (kernel options) kept (None: the default) and the estimated
    saving."""

    node: int
    variant: dict | None
    saving: int | None  # estimated Cortex-M4 instructions saved; None without an estimate
    note: str = ""  # why a variant that fitted was dropped (step 4), or why none was tried (step 6)


def _estimate(lowered: Lowered, low: LoweredNode) -> int | None:
    """The cost model's instructions for a node of the lowering as `low` plans it (None: its kernel has no
    estimate)."""
    estimate = low.kernel.estimate(lowered.target, lowered.graph, low.node, low.params, low.plan)
    return estimate["instructions"] if estimate else None


def _variants(lowered: Lowered, node_index: int) -> tuple[dict, ...]:
    low = lowered.nodes[node_index]
    if low.options:
        return ()
    return low.kernel.variants(lowered.target, lowered.graph, low.node, low.params, low.plan)


class _TensorBuffers:
    """The tensors' buffers of the model order, kept while the overlap table stays the same: a variant that
    only changes its node's scratch bytes changes only the scratch buffers (buffers.scratch_buffers)."""

    def __init__(self):
        self.overlap: dict[int, int] | None = None
        self.buffers: list = []

    def get(self, graph: Graph, order: tuple[int, ...], overlap: dict[int, int], views: bool) -> list:
        if overlap != self.overlap:
            self.buffers = build_buffers(graph, order, {}, overlap, views)
            self.overlap = dict(overlap)
        return self.buffers


def _fits(graph: Graph, order_name: str, planners: tuple[str, ...], budget: int, scratch: dict[int, int],
          overlap: dict[int, int], model_buffers: _TensorBuffers, views: bool) -> tuple[bool, int]:
    """Step 3's test: the lower bound, then a placement, of the graph with a variant in the order `order_name`
    gives; and the work it took (buffers placed, step 6). `scratch` and `overlap` are node_scratch and
    node_overlap of the graph with the variant; `graph` gives only the structure (nodes' ops, inputs and
    outputs), which a variant does not change: orders and buffers read nothing else of it. Each greedy planner
    keeps the smallest of its first-fit passes (first_fit.place_best); a fit only needs one of them to fit,
    so the passes stop at the first that does."""
    if order_name == "model":  # the one order that does not depend on the scratch bytes
        order = tuple(range(len(graph.nodes)))
        buffers = model_buffers.get(graph, order, overlap, views) + scratch_buffers(order, scratch)
    else:
        order = ORDERS[order_name](LiveBytes(graph, scratch, overlap))
        buffers = build_buffers(graph, order, scratch, overlap, views)
    if lower_bound(buffers) > budget:
        return False, len(buffers)
    work = 0
    for name in planners:
        passes = placement_passes(name, buffers)
        if passes is None:
            work += len(buffers)
            if arena_size(buffers, PLANNERS[name](buffers)) <= budget:
                return True, work
            continue
        for offsets in passes:
            work += len(buffers)
            if arena_size(buffers, offsets) <= budget:
                return True, work
    return False, work


def use_room(lowered: Lowered, planners: tuple[str, ...] | None = None) -> tuple[Lowered, tuple[RoomChoice, ...]]:
    """The lowering with the variants that fit its arena, and what was chosen for each candidate node (a bare
    graph is lowered for the default target first)."""
    lowered = as_lowered(lowered)
    candidates = []
    for index in range(len(lowered.nodes)):
        variants = _variants(lowered, index)
        if variants:
            base = _estimate(lowered, lowered.nodes[index])
            fastest = _estimate(lowered, lowered.replanned(index, variants[0]))
            order_by = None if base is None or fastest is None else base - fastest
            candidates.append((order_by, index, variants, base))
    if not candidates:
        return lowered, ()
    graph = lowered.graph
    base_plan = plan_memory(lowered, planners)
    budget, order_name = base_plan.arena_bytes, base_plan.order_name
    # the cheap planners, and the searching one only where it placed the model (it can take a second to give up)
    planners = tuple(n for n in PLANNERS if (planners is None or n in planners)
                     and (n != "branch_and_bound" or n == base_plan.planner))
    candidates.sort(key=lambda c: (c[0] is None, -(c[0] or 0), c[1]))
    original = lowered
    choices = []
    # A variant changes its own node's scratch and overlap only (a kernel plans a node from the node and its
    # tensors), so the two tables are kept up to date node by node instead of priced again for each test.
    scratch, overlap = lowered.scratch(), node_overlap(lowered)
    work = 0
    model_buffers = _TensorBuffers()
    for _, index, variants, base in candidates:
        kept = None
        if work > ROOM_WORK_BUDGET:
            choices.append(RoomChoice(index, None, None, "not tried: the room search's work budget is spent"))
            continue
        for v in variants:
            trial = lowered.replanned(index, v)
            trial_scratch, trial_overlap = _priced(scratch, overlap, trial.plan, index)
            fits, cost = _fits(graph, order_name, planners, budget, trial_scratch, trial_overlap, model_buffers,
                               base_plan.views)
            work += cost
            if fits:
                kept, scratch, overlap = v, trial_scratch, trial_overlap
                lowered = lowered.with_node(index, trial)
                break
        saving = None
        if kept is not None:
            after = _estimate(lowered, lowered.nodes[index])
            saving = None if base is None or after is None else base - after
        choices.append(RoomChoice(index, kept, saving))
    lowered, choices = _same_functions(original, lowered, choices)
    return lowered, tuple(sorted(choices, key=lambda c: c.node))


def _priced(scratch: dict[int, int], overlap: dict[int, int], plan,
            node_index: int) -> tuple[dict[int, int], dict[int, int]]:
    """The scratch and overlap tables with node `node_index` planned as `plan` (a variant of it)."""
    scratch, overlap = dict(scratch), dict(overlap)
    scratch.pop(node_index, None)
    overlap.pop(node_index, None)
    if plan.scratch_bytes:
        scratch[node_index] = plan.scratch_bytes
    if plan.overlap_delta is not None:
        overlap[node_index] = plan.overlap_delta // ALIGN * ALIGN
    return dict(sorted(scratch.items())), dict(sorted(overlap.items()))


def _same_functions(original: Lowered, lowered: Lowered,
                    choices: list[RoomChoice]) -> tuple[Lowered, list[RoomChoice]]:
    """Step 4: drop the variants that moved a node off a function another node still calls."""
    before = {i: n.plan.entry for i, n in enumerate(original.nodes)}
    after = {i: n.plan.entry for i, n in enumerate(lowered.nodes)}
    still_called = set(after.values())
    kept = []
    for choice in choices:
        left = before[choice.node]
        if choice.variant is not None and after[choice.node] != left and left in still_called:
            lowered = lowered.with_options(choice.node, {})
            choice = RoomChoice(choice.node, None, None, f"fits, but {left} stays linked for other layers: "
                                                         f"{after[choice.node]} would add code")
        kept.append(choice)
    return lowered, kept
