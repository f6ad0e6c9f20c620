"""floor on the portable kernels (crt/src/mr_unary_f32.c mr_floor_f32): float32."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableFloor(UnaryMathKernel):
    op = "floor"
    c_name = "floor"
