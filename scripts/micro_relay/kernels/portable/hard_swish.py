"""nn.hard_swish on the portable kernels (crt/src/mr_unary_f32.c mr_hard_swish_f32): float32 and int8 (table lookup)."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableHardSwish(UnaryMathKernel):
    op = "nn.hard_swish"
    c_name = "hard_swish"
