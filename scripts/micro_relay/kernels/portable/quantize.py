"""qnn.quantize on the portable kernel (crt/src/mr_quantize.c): float to integer, or a requantization."""

from __future__ import annotations

from ...codegen.c_text import float_literal
from ..base import Kernel
from ..registry import kernel
from ._elementwise import emit_unary, single_rounding_field


@kernel
class PortableQuantize(Kernel):
    op = "qnn.quantize"
    backend = "portable"
    sources = ("quantize",)

    def emit(self, ctx, node, p, plan):
        fields = {"size": p["size"], "out_zp": p["out_zp"]}
        if p["kind"].startswith("f32"):
            fields.update(scale=float_literal(p["scale"]), lo=float_literal(p["out_min"] - p["out_zp"]),
                          hi=float_literal(p["out_max"] - p["out_zp"]))
            if p["ties_even"]:
                fields["ties_even"] = 1
            return emit_unary(ctx, node, "quantize", p["kind"], "mr_quantize_f32_params", fields)
        fields.update(in_zp=p["in_zp"], mult=p["mult"], shift=p["shift"], **single_rounding_field(p))
        return emit_unary(ctx, node, "quantize", p["kind"], "mr_requantize_params", fields)
