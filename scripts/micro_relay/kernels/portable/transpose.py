"""transpose on the portable kernel (crt/src/mr_transpose.c): walks the output in order."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel
from ._pooling import c_array


@kernel
class PortableTranspose(Kernel):
    op = "transpose"
    backend = "portable"
    sources = ("transpose",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_transpose_params", {
            "elem_size": p["elem_size"], "out_dims": c_array(p["out_dims"]), "in_step": c_array(p["in_step"])})
        return f"mr_transpose({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
