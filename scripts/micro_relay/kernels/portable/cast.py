"""cast on the portable kernel (crt/src/mr_cast.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableCast(Kernel):
    op = "cast"
    backend = "portable"
    sources = ("cast",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_cast_params", {k: p[k] for k in ("count", "in_type", "out_type")})
        return f"mr_cast({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
