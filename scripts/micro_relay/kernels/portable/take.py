"""take on the portable kernel (crt/src/mr_gather.c): positions checked, then rows copied."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel

_TAKE_FIELDS = ("batches", "outer", "axis_size", "count", "inner_bytes", "index_bytes", "wrap_negative")


def gather_call(ctx, node, entry: str, params: str) -> str:
    data, positions = node.inputs
    return f"{entry}({params}, {ctx.tensor(data)}, {ctx.tensor(positions)}, {ctx.tensor(node.outputs[0])});"


@kernel
class PortableTake(Kernel):
    op = "take"
    backend = "portable"
    sources = ("gather",)

    def emit(self, ctx, node, p, plan):
        return gather_call(ctx, node, "mr_gather", ctx.params("mr_gather_params", {k: p[k] for k in _TAKE_FIELDS}))
