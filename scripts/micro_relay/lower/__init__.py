"""Lowering: one stage, once per compile, from a graph and a target to the kernel every node runs.

lower(graph, target, backend, options):
  1. every node's op prepares its constants (OpDef.prepare: multipliers, clamps, folded biases; the
     arithmetic the reference interpreter runs too), which also refuses what no kernel can run;
  2. the backends this compile allows, preferred first: CMSIS-NN when `backend` is "cmsis-nn", the Arm DSP
     kernels when the target has the DSP extension, the portable kernels always (kernels/registry.py);
  3. per node, the first of its op's kernels whose `refusal` is None runs it; the refusals of the preferred
     kernels skipped are kept (`fallback`) for the report;
  4. that kernel plans the node (KernelPlan: scratch, overlap, entry point, sources) with the node's kernel
     options (`options`: node index -> {option: value}, set by the room search, plan/room.py).
The planner, the room search, the emitter and the report all read the result; nothing prepares again.
`replanned` plans one node again with other options (the room search's trials) without copying the rest;
`with_node` puts such a node in place, `with_options` does both.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..errors import CompileError
from ..ir.graph import Graph, Node
from ..ir.registry import get_op, op_where
from ..kernels.base import Kernel, KernelPlan
from ..kernels.registry import kernels_for
from ..target import DEFAULT_TARGET, Target, get_target

KERNEL_BACKENDS = ("micro-relay", "cmsis-nn")  # --kernels: our kernels, or CMSIS-NN where it is bit-exact
DEFAULT_BACKEND = "micro-relay"


@dataclass(frozen=True)
class LoweredNode:
    node: Node
    params: dict  # the op's prepared constants; read-only
    kernel: Kernel
    plan: KernelPlan
    options: dict = field(default_factory=dict)  # the kernel options this node was planned with
    fallback: tuple[tuple[str, str], ...] = ()  # (backend, why it refused) of each preferred kernel skipped


@dataclass(frozen=True)
class Lowered:
    graph: Graph
    target: Target
    backend: str
    nodes: tuple[LoweredNode, ...]

    def scratch(self) -> dict[int, int]:
        """Node index -> scratch bytes, for the nodes whose kernel needs some."""
        return {i: n.plan.scratch_bytes for i, n in enumerate(self.nodes) if n.plan.scratch_bytes}

    def overlap(self) -> dict[int, int]:
        """Node index -> the kernel's overlap delta, for the nodes that declare one."""
        return {i: n.plan.overlap_delta for i, n in enumerate(self.nodes) if n.plan.overlap_delta is not None}

    def replanned(self, index: int, options: dict) -> LoweredNode:
        """Node `index` planned again under `options` (same kernel, same constants)."""
        low = self.nodes[index]
        return _plan(self.target, self.graph, low.node, low.params, low.kernel, options, low.fallback)

    def with_node(self, index: int, low: LoweredNode) -> "Lowered":
        """This lowering with node `index` replaced by `low` (one of its replanned forms)."""
        nodes = list(self.nodes)
        nodes[index] = low
        return replace(self, nodes=tuple(nodes))

    def with_options(self, index: int, options: dict) -> "Lowered":
        """This lowering with node `index` planned again under `options`."""
        return self.with_node(index, self.replanned(index, options))


def backends_for(target: Target, backend: str) -> tuple[str, ...]:
    if backend not in KERNEL_BACKENDS:
        raise CompileError(f"unknown kernel backend '{backend}' (choose from {', '.join(KERNEL_BACKENDS)})",
                           "--kernels")
    return (("cmsis_nn",) if backend == "cmsis-nn" else ()) + (("arm_dsp",) if target.dsp else ()) + ("portable",)


def _plan(target, graph, node, params, kernel, options, fallback) -> LoweredNode:
    unknown = sorted(set(options) - set(kernel.options))
    if unknown:
        raise CompileError(f"kernel option(s) {', '.join(unknown)} unknown to {kernel.backend} {node.op}",
                           op_where(graph, node))
    merged = {**kernel.options, **options}
    return LoweredNode(node, params, kernel, kernel.plan(target, graph, node, params, merged), dict(options), fallback)


def lower_node(target: Target, backends: tuple[str, ...], graph: Graph, node: Node,
               options: dict | None = None) -> LoweredNode:
    params = get_op(node.op).prepare(graph, node)
    fallback = []
    for kernel in kernels_for(node.op, backends):
        reason = kernel.refusal(target, graph, node, params)
        if reason is None:
            return _plan(target, graph, node, params, kernel, options or {}, tuple(fallback))
        fallback.append((kernel.backend, reason))
    why = "; ".join(f"{b}: {r}" for b, r in fallback) or f"no kernel of {node.op} in {', '.join(backends)}"
    raise CompileError(f"no kernel runs {node.op} here ({why})", op_where(graph, node))


def lower(graph: Graph, target: Target | str = DEFAULT_TARGET, backend: str = DEFAULT_BACKEND,
          options: dict[int, dict] | None = None) -> Lowered:
    target = get_target(target)
    backends = backends_for(target, backend)
    options = options or {}
    nodes = tuple(lower_node(target, backends, graph, node, options.get(i)) for i, node in enumerate(graph.nodes))
    return Lowered(graph, target, backend, nodes)


def as_lowered(graph_or_lowered) -> Lowered:
    """A Lowered as given, or a graph lowered for the default target and backend (tests and tools)."""
    return graph_or_lowered if isinstance(graph_or_lowered, Lowered) else lower(graph_or_lowered)
