"""The call shared by the strided-view ops (broadcast_to, tile, nn.space_to_depth, nn.depth_to_space): the
transpose kernel (crt/src/mr_transpose.c) with the view ops/_movement.py view_params prepared."""

from __future__ import annotations

from ..base import Kernel
from ._pooling import c_array


class ViewKernel(Kernel):
    backend = "portable"
    sources = ("transpose",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_transpose_params", {
            "elem_size": p["elem_size"], "out_dims": c_array(p["out_dims"]), "in_step": c_array(p["in_step"])})
        return f"mr_transpose({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
