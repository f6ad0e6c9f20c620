"""greater_equal on the portable kernel (crt/src/mr_compare.c)."""

from __future__ import annotations

from ..registry import kernel
from ._binary import CompareKernel


@kernel
class PortableGreaterEqual(CompareKernel):
    op = "greater_equal"
