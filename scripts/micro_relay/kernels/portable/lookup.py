"""lookup on the portable kernel: the int8 table lookup (crt/src/mr_lut.c), the table the node's constant."""

from __future__ import annotations

from ..base import Kernel, KernelPlan
from ..registry import kernel
from ._elementwise import emit_unary


@kernel
class PortableLookup(Kernel):
    op = "lookup"
    backend = "portable"
    sources = ("lut",)

    def plan(self, target, graph, node, p, options):
        return KernelPlan(sources=self.sources)

    def emit(self, ctx, node, p, plan):
        fields = {"size": p["size"], "valid_min": p["valid_min"], "table": ctx.tensor(node.inputs[1])}
        return emit_unary(ctx, node, "lut", "s8", "mr_lut_s8_params", fields)
