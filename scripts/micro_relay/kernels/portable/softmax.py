"""nn.softmax on the portable kernel (crt/src/mr_softmax.c): float32, int8 to int8 or int16 (gemmlowp fixed
point), int16 to int16 (the two lookup tables ops/softmax.py builds)."""

from __future__ import annotations

from ...codegen.c_text import float_literal
from ..base import Kernel
from ..registry import kernel
from ._elementwise import emit_unary


@kernel
class PortableSoftmax(Kernel):
    op = "nn.softmax"
    backend = "portable"
    sources = ("softmax",)

    def emit(self, ctx, node, p, plan):
        fields = {"rows": p["rows"], "depth": p["depth"]}
        if p["kind"] == "f32":
            fields["beta"] = float_literal(p["beta"])
            return emit_unary(ctx, node, "softmax", "f32", "mr_softmax_f32_params", fields)
        if p["kind"] == "s16_s16":
            fields.update(mult=p["mult"], shift=p["shift"], exp_lut=ctx.const_array(p["exp_lut"], "int16_t"),
                          recip_lut=ctx.const_array(p["recip_lut"], "int16_t"))
            return emit_unary(ctx, node, "softmax", "s16_s16", "mr_softmax_s16_params", fields)
        fields.update({k: p[k] for k in ("mult", "shift", "diff_min")})
        return emit_unary(ctx, node, "softmax", p["kind"], "mr_softmax_q_params", fields)
