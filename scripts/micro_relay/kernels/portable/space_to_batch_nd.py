"""nn.space_to_batch_nd on the portable kernel (crt/src/mr_space_batch.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel

FIELDS = ("batches", "image_h", "image_w", "grid_h", "grid_w", "block_h", "block_w", "offset_h", "offset_w",
          "pixel_bytes", "pad_byte")


@kernel
class PortableSpaceToBatchND(Kernel):
    op = "nn.space_to_batch_nd"
    backend = "portable"
    sources = ("space_batch",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_space_batch_params", {k: p[k] for k in FIELDS})
        return f"mr_space_to_batch_nd({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
