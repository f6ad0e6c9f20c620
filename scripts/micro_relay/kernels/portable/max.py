"""max on the portable kernel (crt/src/mr_reduce.c)."""

from __future__ import annotations

from ..registry import kernel
from ._reduce import ReduceKernel


@kernel
class PortableReduceMax(ReduceKernel):
    op = "max"
