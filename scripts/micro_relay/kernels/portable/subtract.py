"""subtract on the portable kernel (crt/src/mr_subtract.c): every dtype, numpy broadcasting, input 0 may be the
output."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import AddSubKernel


@kernel
class PortableSubtract(AddSubKernel):
    op = "subtract"
    sources = ("subtract",)
