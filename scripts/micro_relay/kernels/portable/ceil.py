"""ceil on the portable kernels (crt/src/mr_unary_f32.c mr_ceil_f32): float32."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableCeil(UnaryMathKernel):
    op = "ceil"
    c_name = "ceil"
