"""Kernels without scratch where a RAM budget needs the bytes.

The Arm DSP kernels are faster because they work from scratch in the arena (filters widened to 16 bits,
zero-padded strips): at the steps the arena peaks at, that scratch can be what keeps a model over the RAM the
firmware leaves it (kws_ref_model on a Cortex-M4: 14,656 B, where the portable kernels need 10,560 B). With a
RAM budget the compiler cannot meet otherwise (lean_for_budget):
  1. every layer whose kernel takes scratch is lowered again on the portable kernels (no scratch, the same
     values: every kernel is bit-exact with TFLite Micro), and the schedule is chosen again (chains.fuse_rows);
  2. the lean lowering is kept only when its arena is smaller, and then each layer that runs on its own (not in
     a chain) gets its fast kernel back, the layers whose cost model saves most first, as long as the arena
     stays within the budget (or, if the budget is out of reach anyway, no larger): the fewest slow layers.
Each layer that keeps the portable kernel says why in the plan report (its kernel entry's fallback).
"""

from __future__ import annotations

from dataclasses import replace

from ..lower import Lowered, lower_node
from .chains import RowsChoice, estimated_instructions, fuse_rows

WHY = "its scratch keeps the arena over --ram-budget"


def _lean(lowered: Lowered) -> tuple[Lowered, list[int]]:
    """Step 1's lowering: the nodes whose kernel takes scratch on the portable kernels; their indices."""
    nodes, swapped = list(lowered.nodes), []
    for index, low in enumerate(lowered.nodes):
        if low.plan.scratch_bytes and low.kernel.backend != "portable":
            lean = lower_node(lowered.target, ("portable",), lowered.graph, low.node)
            if lean.plan.scratch_bytes < low.plan.scratch_bytes:
                nodes[index] = replace(lean, fallback=((low.kernel.backend, WHY),))
                swapped.append(index)
    return replace(lowered, nodes=tuple(nodes)), swapped


def _saving(lowered: Lowered, fast, slow) -> int:
    return (estimated_instructions(lowered, slow) or 0) - (estimated_instructions(lowered, fast) or 0)


def lean_for_budget(lowered: Lowered, fused: Lowered, choice: RowsChoice, ram_budget: int, planners=None,
                    mode: str = "auto", max_recompute: float | None = None) -> tuple[Lowered, RowsChoice]:
    """`fused` (fuse_rows of `lowered`) as it is when its arena and state fit ram_budget or nothing takes
    scratch; else steps 1 and 2."""
    from ..plan.memory_plan import plan_memory

    state = sum(lowered.graph.type_of(n).nbytes for n in lowered.graph.states)
    arena = plan_memory(fused, planners).arena_bytes
    if arena + state <= ram_budget:
        return fused, choice
    lean, swapped = _lean(lowered)
    if not swapped:
        return fused, choice
    options = {} if max_recompute is None else {"max_recompute": max_recompute}
    lean_fused, lean_choice = fuse_rows(lean, planners, mode, ram_budget, **options)
    lean_arena = plan_memory(lean_fused, planners).arena_bytes
    if lean_arena >= arena:
        return fused, choice
    limit = max(ram_budget - state, lean_arena)
    alone = {id(low.node): at for at, low in enumerate(lean_fused.nodes) if low.node.op != "fused.rows"}
    back = sorted((i for i in swapped if id(lowered.nodes[i].node) in alone),
                  key=lambda i: -_saving(lowered, lowered.nodes[i], lean.nodes[i]))
    for i in back:  # step 2
        trial = lean_fused.with_node(alone[id(lowered.nodes[i].node)], lowered.nodes[i])
        if plan_memory(trial, planners).arena_bytes <= limit:
            lean_fused = trial
    return lean_fused, replace(lean_choice, why=lean_choice.why + "; portable kernels where the Arm DSP kernels' "
                                                                    "scratch kept the arena over the RAM budget")
