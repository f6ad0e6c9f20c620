"""log on the portable kernels (crt/src/mr_unary_f32.c mr_log_f32): float32."""

from __future__ import annotations

from ..registry import kernel
from ._unary import UnaryMathKernel


@kernel
class PortableLog(UnaryMathKernel):
    op = "log"
    c_name = "log"
