"""full on the portable kernel (crt/src/mr_fill.c): the value's element repeated."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableFull(Kernel):
    op = "full"
    backend = "portable"
    sources = ("fill",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_fill_params", {"elem_size": p["elem_size"], "count": p["count"]})
        return f"mr_fill({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
