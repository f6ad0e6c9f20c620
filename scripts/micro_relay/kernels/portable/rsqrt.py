"""rsqrt on the portable kernels (crt/src/mr_unary_f32.c mr_rsqrt_f32): float32 and int8 (table lookup)."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableRsqrt(UnaryMathKernel):
    op = "rsqrt"
    c_name = "rsqrt"
