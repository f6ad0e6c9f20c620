"""The memory plan report (NAME.plan.json): per tensor its size, first/last use and offset, the arena
size next to the lower bound under the chosen order, and per node its op and MAC count."""

from __future__ import annotations

from ..ir.graph import Graph
from ..ir.registry import get_op
from .memory_plan import MemoryPlan


def plan_report(name: str, graph: Graph, plan: MemoryPlan, source: str) -> dict:
    tensors = []
    for buf in sorted(plan.buffers, key=lambda b: (plan.offsets[b.name], b.first, b.name)):
        for tensor in buf.tensors or (buf.name,):
            tensors.append({
                "name": tensor,
                "bytes": graph.type_of(tensor).nbytes if tensor in graph.tensors else buf.size,
                "first_use": buf.first,
                "last_use": buf.last,
                "offset": plan.offsets[buf.name],
                "buffer": buf.name,
            })
    nodes = []
    total_macs = 0
    for step, index in enumerate(plan.order):
        node = graph.nodes[index]
        macs = get_op(node.op).macs(graph, node)
        total_macs += macs
        nodes.append({"step": step, "op": node.op, "name": node.name, "output": node.outputs[0], "macs": macs})
    weights = sum(t.type.nbytes for t in graph.tensors.values() if t.is_constant)
    return {
        "model": name,
        "source": source,
        "arena_bytes": plan.arena_bytes,
        "lower_bound_bytes": plan.lower_bound,
        "order": plan.order_name,
        "planner": plan.planner,
        "weights_bytes": weights,
        "macs": total_macs,
        "tensors": tensors,
        "nodes": nodes,
    }
