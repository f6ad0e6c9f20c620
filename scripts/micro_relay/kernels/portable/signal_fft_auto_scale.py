"""signal.fft_auto_scale on the portable kernel (crt/src/mr_signal_fft_auto_scale.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableSignalFftAutoScale(Kernel):
    op = "signal.fft_auto_scale"
    backend = "portable"
    sources = ("signal_fft_auto_scale",)

    def emit(self, ctx, node, p, plan):
        return (f"mr_signal_fft_auto_scale({p['size']}, {ctx.tensor(node.inputs[0])}, "
                f"{ctx.tensor(node.outputs[0])}, {ctx.tensor(node.outputs[1])});")
