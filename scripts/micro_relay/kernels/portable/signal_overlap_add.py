"""signal.overlap_add on the portable kernels (crt/src/mr_signal_overlap_add.c), int16 and float32."""

from __future__ import annotations

from ..base import Kernel, KernelPlan
from ..registry import kernel


@kernel
class PortableSignalOverlapAdd(Kernel):
    op = "signal.overlap_add"
    backend = "portable"
    sources = ("signal_overlap_add",)

    def plan(self, target, graph, node, p, options):
        """The buffer is updated in the new state, after a copy when that is not the old one."""
        return KernelPlan(sources=self.sources, inplace_outputs=((1, 1),))

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_signal_overlap_add_params", {k: p[k] for k in ("rows", "frames", "frame", "step")})
        x, state = (ctx.tensor(t) for t in node.inputs)
        out, new_state = (ctx.tensor(t) for t in node.outputs)
        return f"mr_signal_overlap_add_{p['kind']}({params}, {x}, {state}, {out}, {new_state});"

