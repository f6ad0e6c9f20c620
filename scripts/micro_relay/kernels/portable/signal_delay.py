"""signal.delay on the portable kernel (crt/src/mr_signal_delay.c)."""

from __future__ import annotations

from ..base import Kernel, KernelPlan
from ..registry import kernel


@kernel
class PortableSignalDelay(Kernel):
    op = "signal.delay"
    backend = "portable"
    sources = ("signal_delay",)

    def plan(self, target, graph, node, p, options):
        """The new state may be written over the old: each value is read before it is overwritten."""
        return KernelPlan(sources=self.sources, inplace_outputs=((1, 1),))

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_signal_delay_params", {k: p[k] for k in ("rows", "frame", "delay")})
        x, state = (ctx.tensor(t) for t in node.inputs)
        out, new_state = (ctx.tensor(t) for t in node.outputs)
        return f"mr_signal_delay({params}, {x}, {state}, {out}, {new_state});"
