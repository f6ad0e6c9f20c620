"""signal.spectral_subtraction on the portable kernel (crt/src/mr_signal_spectral_subtraction.c)."""

from __future__ import annotations

from ..base import Kernel, KernelPlan
from ..registry import kernel

FIELDS = ("size", "smoothing", "one_minus_smoothing", "alternate_smoothing", "alternate_one_minus_smoothing",
          "min_signal_remaining", "smoothing_bits", "bits", "clamping")


@kernel
class PortableSignalSpectralSubtraction(Kernel):
    op = "signal.spectral_subtraction"
    backend = "portable"
    sources = ("signal_spectral_subtraction",)

    def plan(self, target, graph, node, p, options):
        """The new estimate may be written over the state: each channel reads its old value first."""
        return KernelPlan(sources=self.sources, inplace_outputs=((1, 1),))

    def emit(self, ctx, node, p, plan):
        fields = {k: (f"{p[k]}u" if k in FIELDS[1:6] else p[k]) for k in FIELDS}
        params = ctx.params("mr_signal_spectral_subtraction_params", fields)
        x, state = (ctx.tensor(t) for t in node.inputs)
        out, noise = (ctx.tensor(t) for t in node.outputs)
        return f"mr_signal_spectral_subtraction({params}, {x}, {state}, {out}, {noise});"
