"""nn.layer_norm on the portable kernel (crt/src/mr_layer_norm.c)."""

from __future__ import annotations

from ...codegen.c_text import float_literal
from ..base import Kernel
from ..registry import kernel


@kernel
class PortableLayerNorm(Kernel):
    op = "nn.layer_norm"
    backend = "portable"
    sources = ("layer_norm",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_layer_norm_f32_params", {"outer": p["outer"], "inner": p["inner"],
                                                         "epsilon": float_literal(p["epsilon"])})
        data, gamma, beta = (ctx.tensor(t) for t in node.inputs)
        return f"mr_layer_norm_f32({params}, {data}, {gamma}, {beta}, {ctx.tensor(node.outputs[0])});"
