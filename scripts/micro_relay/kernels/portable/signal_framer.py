"""signal.framer on the portable kernel (crt/src/mr_signal_framer.c)."""

from __future__ import annotations

from ..base import Kernel, KernelPlan
from ..registry import kernel


@kernel
class PortableSignalFramer(Kernel):
    op = "signal.framer"
    backend = "portable"
    sources = ("signal_framer",)

    def plan(self, target, graph, node, p, options):
        """The held samples and their count are updated in the new state, after a copy when that is not the old."""
        return KernelPlan(sources=self.sources, inplace_outputs=((2, 1), (3, 2)))

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_signal_framer_params", {k: p[k] for k in ("rows", "frames", "size", "step", "capacity")})
        args = ", ".join(ctx.tensor(t) for t in (*node.inputs, *node.outputs))
        return f"mr_signal_framer({params}, {args});"
