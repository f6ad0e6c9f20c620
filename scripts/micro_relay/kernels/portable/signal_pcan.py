"""signal.pcan on the portable kernel (crt/src/mr_signal_pcan.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableSignalPcan(Kernel):
    op = "signal.pcan"
    backend = "portable"
    sources = ("signal_pcan",)

    def emit(self, ctx, node, p, plan):
        x, noise, lut = (ctx.tensor(t) for t in node.inputs)
        return f"mr_signal_pcan({p['size']}, {p['snr_shift']}, {x}, {noise}, {lut}, {ctx.tensor(node.outputs[0])});"
