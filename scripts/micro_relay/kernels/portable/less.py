"""less on the portable kernel (crt/src/mr_compare.c)."""

from __future__ import annotations

from ..registry import kernel
from ._binary import CompareKernel


@kernel
class PortableLess(CompareKernel):
    op = "less"
