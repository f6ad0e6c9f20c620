"""nn.elu on the portable kernels (crt/src/mr_unary_f32.c mr_elu_f32): float32 and int8 (table lookup)."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableElu(UnaryMathKernel):
    op = "nn.elu"
    c_name = "elu"
