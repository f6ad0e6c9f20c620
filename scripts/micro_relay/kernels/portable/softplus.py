"""nn.softplus on the portable kernels (crt/src/mr_unary_f32.c mr_softplus_f32): float32."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableSoftplus(UnaryMathKernel):
    op = "nn.softplus"
    c_name = "softplus"
