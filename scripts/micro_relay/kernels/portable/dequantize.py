"""qnn.dequantize on the portable kernel (crt/src/mr_dequantize.c)."""

from __future__ import annotations

from ...codegen.c_text import float_literal
from ..base import Kernel
from ..registry import kernel
from ._elementwise import emit_unary


@kernel
class PortableDequantize(Kernel):
    op = "qnn.dequantize"
    backend = "portable"
    sources = ("dequantize",)

    def emit(self, ctx, node, p, plan):
        fields = {"size": p["size"], "zp": p["zp"], "scale": float_literal(p["scale"])}
        return emit_unary(ctx, node, "dequantize", p["kind"], "mr_dequantize_params", fields)
