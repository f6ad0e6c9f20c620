"""rsqrt on the portable kernels: float32 (crt/src/mr_unary_f32.c), int8 (table lookup) and int16
(crt/src/mr_rsqrt.c)."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import emit_unary
from ._unary import UnaryMathKernel


@kernel
class PortableRsqrt(UnaryMathKernel):
    op = "rsqrt"
    c_name = "rsqrt"
    s16_sources = ("rsqrt",)

    def emit_s16(self, ctx, node, p):
        fields = {k: p[k] for k in ("size", "mult", "shift")}
        return emit_unary(ctx, node, "rsqrt", "s16", "mr_rsqrt_s16_params", fields)
