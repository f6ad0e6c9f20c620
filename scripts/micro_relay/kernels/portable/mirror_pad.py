"""nn.mirror_pad on the portable kernel (crt/src/mr_mirror_pad.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel
from ._pooling import c_array


@kernel
class PortableMirrorPad(Kernel):
    op = "nn.mirror_pad"
    backend = "portable"
    sources = ("mirror_pad",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_mirror_pad_params", {
            "elem_size": p["elem_size"], "symmetric": p["symmetric"], "in_dims": c_array(p["in_dims"]),
            "before": c_array(p["before"]), "out_dims": c_array(p["out_dims"])})
        return f"mr_mirror_pad({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
