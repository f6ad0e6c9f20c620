"""signal.stacker on the portable kernel (crt/src/mr_signal_stacker.c)."""

from __future__ import annotations

from ..base import Kernel, KernelPlan
from ..registry import kernel


@kernel
class PortableSignalStacker(Kernel):
    op = "signal.stacker"
    backend = "portable"
    sources = ("signal_stacker",)

    def plan(self, target, graph, node, p, options):
        """The held values and flags are updated in the new state, after a copy when that is not the old."""
        return KernelPlan(sources=self.sources, inplace_outputs=((2, 1), (3, 2)))

    def emit(self, ctx, node, p, plan):
        fields = {"channels": p["channels"], "left": p["left"], "size": p["size"], "drop": p["step"] * p["channels"]}
        params = ctx.params("mr_signal_stacker_params", fields)
        args = ", ".join(ctx.tensor(t) for t in (*node.inputs, *node.outputs))
        return f"mr_signal_stacker({params}, {args});"
