"""round on the portable kernels (crt/src/mr_unary_f32.c mr_round_f32): float32."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableRound(UnaryMathKernel):
    op = "round"
    c_name = "round"
