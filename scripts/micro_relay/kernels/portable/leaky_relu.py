"""nn.leaky_relu on the portable kernel (crt/src/mr_leaky_relu.c)."""

from __future__ import annotations

from ...codegen.c_text import float_literal
from ..base import Kernel
from ..registry import kernel
from ._elementwise import emit_unary


@kernel
class PortableLeakyRelu(Kernel):
    op = "nn.leaky_relu"
    backend = "portable"
    sources = ("leaky_relu",)

    def emit(self, ctx, node, p, plan):
        fields = {"size": p["size"]}
        if p["kind"] == "f32":
            fields["alpha"] = float_literal(p["alpha"])
            return emit_unary(ctx, node, "leaky_relu", "f32", "mr_leaky_relu_f32_params", fields)
        fields.update({k: p[k] for k in ("in_zp", "out_zp", "id_mult", "id_shift", "alpha_mult", "alpha_shift",
                                         "alpha_negative")})
        return emit_unary(ctx, node, "leaky_relu", p["kind"], "mr_leaky_relu_q_params", fields)
