"""floor_mod on the portable kernel (crt/src/mr_floor_div.c)."""

from __future__ import annotations

from ..registry import kernel
from ._binary import FloorKernel


@kernel
class PortableFloorMod(FloorKernel):
    op = "floor_mod"
