"""signal.filter_bank on the portable kernel (crt/src/mr_signal_filter_bank.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableSignalFilterBank(Kernel):
    op = "signal.filter_bank"
    backend = "portable"
    sources = ("signal_filter_bank",)

    def emit(self, ctx, node, p, plan):
        x, weights, unweights, freq, wstart, width = (ctx.tensor(t) for t in node.inputs)
        params = ctx.params("mr_signal_filter_bank_params", {
            "channels": p["channels"], "weights": weights, "unweights": unweights, "freq_starts": freq,
            "weight_starts": wstart, "widths": width})
        return f"mr_signal_filter_bank({params}, {x}, {ctx.tensor(node.outputs[0])});"
