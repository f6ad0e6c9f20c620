"""nn.pad on the portable kernel (crt/src/mr_pad.c): a raw copy into the middle of the border value."""

from __future__ import annotations

import numpy as np

from ...ops._common import out_type
from ..base import Kernel
from ..registry import kernel
from ._pooling import c_array


@kernel
class PortablePad(Kernel):
    op = "nn.pad"
    backend = "portable"
    sources = ("pad",)

    def emit(self, ctx, node, p, plan):
        out = out_type(ctx.graph, node)
        value = ctx.const_array(np.array([p["value"]]).astype(out.dtype.numpy), out.dtype.c_type)
        params = ctx.params("mr_pad_params", {
            "elem_size": p["elem_size"], "in_dims": c_array(p["in_dims"]), "before": c_array(p["before"]),
            "after": c_array(p["after"]), "value": value})
        return f"mr_pad({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
