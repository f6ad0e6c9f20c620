"""logical_and on the portable kernel (crt/src/mr_logical.c)."""

from __future__ import annotations

from ..registry import kernel
from ._binary import LogicalKernel


@kernel
class PortableLogicalAnd(LogicalKernel):
    op = "logical_and"
