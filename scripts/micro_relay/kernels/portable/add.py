"""add on the portable kernel (crt/src/mr_add.c): every dtype, numpy broadcasting, input 0 may be the output."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import AddSubKernel


@kernel
class PortableAdd(AddSubKernel):
    op = "add"
    sources = ("add",)
