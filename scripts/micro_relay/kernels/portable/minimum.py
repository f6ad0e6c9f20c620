"""minimum on the portable kernel (crt/src/mr_minmax.c)."""

from __future__ import annotations

from ..registry import kernel
from ._binary import MinMaxKernel


@kernel
class PortableMinimum(MinMaxKernel):
    op = "minimum"
