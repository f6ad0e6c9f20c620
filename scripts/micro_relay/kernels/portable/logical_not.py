"""logical_not on the portable kernel (crt/src/mr_logical.c)."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import UnaryKernel


@kernel
class PortableLogicalNot(UnaryKernel):
    op = "logical_not"
    sources = ("logical",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_logical_not_params", {"size": p["size"]})
        return f"mr_logical_not_bool({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
