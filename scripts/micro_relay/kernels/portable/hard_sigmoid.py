"""nn.hard_sigmoid on the portable kernels (crt/src/mr_unary_f32.c mr_hard_sigmoid_f32): float32."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableHardSigmoid(UnaryMathKernel):
    op = "nn.hard_sigmoid"
    c_name = "hard_sigmoid"
