"""strided_slice on the portable kernel (crt/src/mr_strided_slice.c): a raw strided copy of a box. A slice that
is one contiguous run of its input is, when the memory plan gives it those bytes (plan/buffers.py step 2), no
code at all."""

from __future__ import annotations

from ...ir.registry import get_op
from ...plan.buffers import in_arena
from ..base import Kernel
from ..registry import kernel
from ._pooling import c_array


@kernel
class PortableStridedSlice(Kernel):
    op = "strided_slice"
    backend = "portable"
    sources = ("strided_slice",)

    def emit(self, ctx, node, p, plan):
        source, out = node.inputs[0], node.outputs[0]
        view = get_op(node.op).view_offset(ctx.graph, node)
        if view is not None and in_arena(ctx.graph, source) and in_arena(ctx.graph, out) \
                and ctx.plan.tensor_offset(out) == ctx.plan.tensor_offset(source) + view:
            return "/* a view of its input's bytes */"
        params = ctx.params("mr_strided_slice_params", {
            "elem_size": p["elem_size"], "start": p["start"], "dims": c_array(p["dims"]), "steps": c_array(p["steps"])})
        return f"mr_strided_slice({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
