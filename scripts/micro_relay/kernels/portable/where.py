"""where on the portable kernel (crt/src/mr_where.c): a raw copy of x or y per element, three-way broadcast."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel

MAX_RANK = 6  # MR_WHERE_MAX_RANK


def _arr(values) -> str:
    values = list(values) + [0] * (MAX_RANK - len(values))
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


@kernel
class PortableWhere(Kernel):
    op = "where"
    backend = "portable"
    sources = ("where",)

    def emit(self, ctx, node, p, plan):
        layout = p["layout"]
        fields = {"rank": layout["rank"], "dims": _arr(layout["dims"]),
                  "strides": "{" + ", ".join(_arr(s) for s in layout["strides"]) + "}", "size": p["size"]}
        params = ctx.params("mr_where_params", fields)
        c, x, y = node.inputs
        return (f"mr_where_{p['kind']}({params}, {ctx.tensor(c)}, {ctx.tensor(x)}, {ctx.tensor(y)}, "
                f"{ctx.tensor(node.outputs[0])});")
