"""power on the portable kernel (crt/src/mr_power.c): float32, the C library's powf."""

from __future__ import annotations

from ..registry import kernel
from ._binary import BroadcastKernel


@kernel
class PortablePower(BroadcastKernel):
    op = "power"
    sources = ("power",)
