"""strided_slice on the portable kernel (crt/src/mr_strided_slice.c): a raw strided copy of a box."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel
from ._pooling import c_array


@kernel
class PortableStridedSlice(Kernel):
    op = "strided_slice"
    backend = "portable"
    sources = ("strided_slice",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_strided_slice_params", {
            "elem_size": p["elem_size"], "start": p["start"], "dims": c_array(p["dims"]), "steps": c_array(p["steps"])})
        return f"mr_strided_slice({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
