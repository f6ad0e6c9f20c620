"""abs on the portable kernels: float32, int8 (table lookup) and int16 (crt/src/mr_abs.c)."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import emit_unary
from ._unary import UnaryMathKernel


@kernel
class PortableAbs(UnaryMathKernel):
    op = "abs"
    c_name = "abs"
    s16_sources = ("abs",)

    def emit_s16(self, ctx, node, p):
        fields = {k: p[k] for k in ("size", "rescale", "mult", "shift")}
        return emit_unary(ctx, node, "abs", "s16", "mr_abs_s16_params", fields)
