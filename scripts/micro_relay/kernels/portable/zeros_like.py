"""zeros_like on the portable kernel (crt/src/mr_fill.c): the output cleared; the input is not read."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableZerosLike(Kernel):
    op = "zeros_like"
    backend = "portable"
    sources = ("fill",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_fill_params", {"elem_size": p["elem_size"], "count": p["count"]})
        return f"mr_fill_zero({params}, {ctx.tensor(node.outputs[0])});"
