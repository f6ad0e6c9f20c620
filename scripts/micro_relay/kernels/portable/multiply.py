"""multiply on the portable kernel (crt/src/mr_multiply.c): every dtype, numpy broadcasting, input 0 may be the
output."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import BinaryKernel


@kernel
class PortableMultiply(BinaryKernel):
    op = "multiply"
    sources = ("multiply",)
    c_fields = ("a_offset", "b_offset", "out_offset", "mult", "shift")
