"""square on the portable kernels (crt/src/mr_unary_f32.c mr_square_f32): float32."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableSquare(UnaryMathKernel):
    op = "square"
    c_name = "square"
