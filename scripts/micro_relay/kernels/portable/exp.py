"""exp on the portable kernels (crt/src/mr_unary_f32.c mr_exp_f32): float32."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableExp(UnaryMathKernel):
    op = "exp"
    c_name = "exp"
