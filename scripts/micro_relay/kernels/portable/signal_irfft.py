"""signal.irfft on the portable kernel (crt/src/mr_signal_rfft.c, the forward FFT's butterflies run inverse): the
merged half-length spectrum and its work buffer in arena scratch (int32 pairs for both integer widths, float
pairs for float)."""

from __future__ import annotations

from ..base import KernelPlan
from ..registry import kernel
from .signal_rfft import PortableSignalRfft


@kernel
class PortableSignalIrfft(PortableSignalRfft):
    op = "signal.irfft"
    function = "mr_signal_irfft"

    def plan(self, target, graph, node, p, options):
        return KernelPlan(scratch_bytes=16 * p["n"], sources=self.sources)
