"""nn.gelu on the portable kernels (crt/src/mr_unary_f32.c): float32, mr_gelu_f32 (erf) or mr_gelu_tanh_f32
(the tanh approximation)."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableGelu(UnaryMathKernel):
    op = "nn.gelu"
    c_name = "gelu"

    def float_name(self, p):
        return "gelu_tanh" if p["approximate"] else "gelu"
