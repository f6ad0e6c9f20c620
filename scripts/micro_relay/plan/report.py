"""The memory plan report (NAME.plan.json).

- per tensor: its bytes, first and last use (steps of the chosen order), offset, and the buffer it shares
  (alias and in-place tensors name the same buffer); scratch buffers appear under their own names;
- the state storage (state.py: what the model keeps between invokes, apart from the arena), its bytes and
  each state tensor's offset, bytes and the new values written straight into it (no assign copy);
- the arena size next to the lower bound under the chosen order (the most bytes live at one step), the
  step where it is reached and the buffers live there (the set that must be live at once);
- every lagged overlap permission (an output allowed over its dying input, buffers.py step 4): both buffers,
  the delta, offset(output) - offset(input) and the bytes they actually share (0 when placed apart);
- the nodes the plan made free (free_nodes): slices that are views, concatenations written in place;
- which order and planner won, and what every candidate order gave ("<order> (copies)": the same order
  with slices and concatenations copied);
- the weights: the bytes of the constant arrays the emitted C puts in flash, by part (codegen/constants.py;
  the budget check's weights figure is the same sum of the same arrays), when the caller has emitted the C;
- the target (target/) and the kernel backend asked for;
- per node its op, MAC count and kernel: {backend: the loop structure it takes for the node's shapes}
  (Kernel.report), with, where a preferred backend refused the node, why (under that backend's name);
- per node whose kernel has one, the target's cost-model instructions (Kernel.estimate, target/cost_model.py):
  the path taken and, where the compiler chose, every candidate's; and their sum (estimated_instructions:
  those layers only, not the whole model);
- per node that has a faster variant with more scratch (plan/room.py): the variant kept (null: the arena
  had no room for any, or it would have linked more code: "note" says so), its scratch and the estimated
  instructions it saves.
"""

from __future__ import annotations

from ..codegen.constants import FlashConstants
from ..ir.registry import get_op
from ..lower import Lowered, LoweredNode, as_lowered
from .buffers import in_arena, overlap_pairs, peak_step, tensor_lifetimes
from .memory_plan import MemoryPlan
from .room import RoomChoice


def _kernel_entry(lowered: Lowered, low: LoweredNode) -> dict[str, str]:
    """{backend: loops} of the kernel that runs the node and, when CMSIS-NN was asked for and refused the node,
    {"cmsis_nn": why}."""
    entry = {backend: f"not used: {why}; our kernel runs" for backend, why in low.fallback if backend == "cmsis_nn"}
    entry.update({backend: f"not used: {why}" for backend, why in low.fallback if backend == "arm_dsp"})
    text = low.kernel.report(lowered.graph, low.node, low.params, low.plan)
    if text:
        entry[low.kernel.backend] = text
    return entry


def free_nodes(graph, plan: MemoryPlan) -> list[dict]:
    """The nodes other than aliases that run no code because the plan gave them their input's bytes: slices and
    SPLIT parts that are views, concatenations written in place by their producers (buffers.py steps 2, 3')."""
    entries = []
    for index, node in enumerate(graph.nodes):
        op = get_op(node.op)
        names = [n for n in (*node.inputs, *node.outputs) if n]
        if op.alias or not node.outputs or not names or not all(in_arena(graph, n) for n in names):
            continue
        out = plan.buffer_of(node.outputs[0])
        if op.input_offsets(graph, node) is not None and all(plan.buffer_of(n) is out for n in node.inputs):
            entries.append({"node": index, "op": node.op, "name": node.name, "as": "written in place by its producers",
                            "buffer": out.name})
        elif op.view_offset(graph, node) is not None and plan.buffer_of(node.inputs[0]) is out:
            entries.append({"node": index, "op": node.op, "name": node.name, "as": "view", "buffer": out.name,
                            "offset_in_buffer": out.place_of(node.outputs[0])})
    return entries


def row_by_row_entry(choice) -> dict:
    """The runs of layers made fused.rows nodes (their node indices in the layer-by-layer graph) and the patch
    grid of each, the arena layer by layer and row by row, what that adds (the multiply-accumulates the patches
    compute twice; the cost model's instructions, where the target has one) and why this schedule was kept."""
    grids = dict(choice.grids)
    return {"runs": [{"layers": list(run), "patches": list(grids.get(run, (1, 1)))} for run in choice.runs],
            "arena_layer_by_layer": choice.arena_layer_by_layer, "arena_row_by_row": choice.arena_row_by_row,
            "extra_macs": choice.recompute_macs, "model_macs": choice.model_macs,
            "extra_instructions_estimate": choice.extra_instructions,
            "model_instructions_estimate": choice.model_instructions, "why": choice.why}


def plan_report(name: str, lowered: Lowered, plan: MemoryPlan, source: str,
                room: tuple[RoomChoice, ...] = (), flash: FlashConstants | None = None, rows=None) -> dict:
    """rows: schedule/chains.py's RowsChoice (which layers run row by row, and why)."""
    lowered = as_lowered(lowered)  # a bare graph: lowered for the default target
    graph = lowered.graph
    life = tensor_lifetimes(graph, plan.order)
    tensors = []
    for buf in sorted(plan.buffers, key=lambda b: (plan.offsets[b.name], b.first, b.name)):
        for tensor in buf.tensors or (buf.name,):
            first, last = life.get(tensor, (buf.first, buf.last))
            tensors.append({
                "name": tensor,
                "bytes": graph.type_of(tensor).nbytes if tensor in graph.tensors else buf.size,
                "first_use": first,
                "last_use": last,
                "offset": plan.offsets[buf.name] + buf.place_of(tensor),
                "buffer": buf.name,
            })
    step = peak_step(list(plan.buffers))
    at_peak = sorted((b for b in plan.buffers if b.first <= step <= b.last),
                     key=lambda b: (plan.offsets[b.name], b.name))
    nodes = []
    total_macs = total_estimate = 0
    for index, node_index in enumerate(plan.order):
        low = lowered.nodes[node_index]
        node = low.node
        macs = get_op(node.op).macs(graph, node)
        total_macs += macs
        path = _kernel_entry(lowered, low)
        estimate = low.kernel.estimate(lowered.target, graph, node, low.params, low.plan)
        total_estimate += estimate["instructions"] if estimate else 0
        nodes.append({"step": index, "node": node_index, "op": node.op, "name": node.name,
                      "output": node.outputs[0] if node.outputs else node.inputs[0], "macs": macs, **({"kernel": path} if path else {}),
                      **({"estimate": estimate} if estimate else {})})
    overlaps = []
    for out, inp, delta in overlap_pairs(list(plan.buffers)):
        at_out, at_in = plan.offsets[out.name], plan.offsets[inp.name]
        shared = max(0, min(at_out + out.size, at_in + inp.size) - max(at_out, at_in))
        overlaps.append({"output": out.name, "input": inp.name, "step": out.first, "delta": delta,
                         "offset_difference": at_out - at_in, "shared_bytes": shared})
    scratch = lowered.scratch() if room else {}
    room_entries = [{"node": c.node, "name": graph.nodes[c.node].name, "variant": c.variant,
                     "scratch_bytes": scratch.get(c.node, 0), "estimated_saving": c.saving,
                     **({"note": c.note} if c.note else {})} for c in room]
    return {
        "model": name,
        "source": source,
        "target": lowered.target.name,
        "kernels": lowered.backend,
        "arena_bytes": plan.arena_bytes,
        "lower_bound_bytes": plan.lower_bound,
        "state_bytes": plan.state.state_bytes,
        "states": [{"name": n, "offset": off, "bytes": graph.type_of(n).nbytes,
                    "written_in_place_by": sorted(t.name for t in graph.tensors.values() if t.stored_in == n)}
                   for n, off in plan.state.offsets.items()],
        "lower_bound_step": step,
        "live_at_lower_bound": [{"buffer": b.name, "bytes": b.size} for b in at_peak],
        "overlaps": overlaps,
        "free_nodes": free_nodes(graph, plan),
        "order": plan.order_name,
        "planner": plan.planner,
        "candidates": [{"order": c.order_name, "planner": c.planner, "arena_bytes": c.arena_bytes,
                        "lower_bound_bytes": c.lower_bound, **({"same_as": c.same_as} if c.same_as else {})}
                       for c in plan.tried],
        **({"weights_bytes": flash.total, "weights": flash.report()} if flash is not None else {}),
        "macs": total_macs,
        "estimated_instructions": total_estimate,
        "room": room_entries,
        **({"row_by_row": row_by_row_entry(rows)} if rows is not None else {}),
        "tensors": tensors,
        "nodes": nodes,
    }
