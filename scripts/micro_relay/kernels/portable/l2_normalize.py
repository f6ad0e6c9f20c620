"""nn.l2_normalize on the portable kernel (crt/src/mr_l2_normalize.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableL2Normalize(Kernel):
    op = "nn.l2_normalize"
    backend = "portable"
    sources = ("l2_normalize",)

    def emit(self, ctx, node, p, plan):
        fields = {"outer": p["outer"], "depth": p["depth"]}
        if p["kind"] == "s8":
            fields["in_zp"] = p["in_zp"]
        params = ctx.params(f"mr_l2_normalize_{p['kind']}_params", fields)
        return f"mr_l2_normalize_{p['kind']}({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
