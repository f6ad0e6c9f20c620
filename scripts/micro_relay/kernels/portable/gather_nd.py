"""gather_nd on the portable kernel (crt/src/mr_gather.c): positions checked, then slices copied."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel
from ._pooling import c_array
from .take import gather_call


@kernel
class PortableGatherND(Kernel):
    op = "gather_nd"
    backend = "portable"
    sources = ("gather",)

    def emit(self, ctx, node, p, plan):
        fields = {k: p[k] for k in ("count", "depth", "slice_bytes", "index_bytes")}
        fields.update(dims=c_array(p["dims"]), steps=c_array(p["steps"]))
        return gather_call(ctx, node, "mr_gather_nd", ctx.params("mr_gather_nd_params", fields))
