"""nn.batch_to_space_nd on the portable kernel (crt/src/mr_space_batch.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel
from .space_to_batch_nd import FIELDS


@kernel
class PortableBatchToSpaceND(Kernel):
    op = "nn.batch_to_space_nd"
    backend = "portable"
    sources = ("space_batch",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_space_batch_params", {k: p[k] for k in FIELDS})
        return f"mr_batch_to_space_nd({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
