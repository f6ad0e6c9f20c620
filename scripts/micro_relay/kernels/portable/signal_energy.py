"""signal.energy on the portable kernel (crt/src/mr_signal_energy.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableSignalEnergy(Kernel):
    op = "signal.energy"
    backend = "portable"
    sources = ("signal_energy",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_signal_energy_params", {"start": p["start"], "end": p["end"], "size": p["size"]})
        return f"mr_signal_energy({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
