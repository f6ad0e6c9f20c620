"""TRANSITIONAL (removed when every op's portable kernel has its own file): a portable kernel that still reads
its op's old emit hooks (OpDef.emit, kernel_sources, scratch_bytes, overlap_delta)."""

from __future__ import annotations

from ...ir.registry import get_op
from ..base import Kernel, KernelPlan


class OpHookKernel(Kernel):
    backend = "portable"

    def __init__(self, op: str = ""):
        self.op = op

    def plan(self, target, graph, node, p, options):
        op = get_op(node.op)
        return KernelPlan(scratch_bytes=op.scratch_bytes(graph, node, p), overlap_delta=op.overlap_delta(graph, node, p),
                          sources=tuple(op.kernel_sources(graph, node)))

    def emit(self, ctx, node, p, plan):
        return get_op(node.op).emit(ctx, node, p)
