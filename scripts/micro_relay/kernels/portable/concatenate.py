"""concatenate on the portable kernel (crt/src/mr_concatenate.c): raw rows of every input in turn. When the
memory plan has each input's producer write it into its slice of the output (plan/buffers.py step 3'), no code
runs."""

from __future__ import annotations

import numpy as np

from ...ir.registry import get_op
from ...plan.buffers import in_arena
from ..base import Kernel
from ..registry import kernel


def written_in_place(ctx, node) -> bool:
    """Whether every input already sits in its slice of the output."""
    slices = get_op(node.op).input_offsets(ctx.graph, node)
    if slices is None or not all(name and in_arena(ctx.graph, name) for name in (*node.inputs, node.outputs[0])):
        return False
    base = ctx.plan.tensor_offset(node.outputs[0])
    return all(ctx.plan.tensor_offset(name) == base + at for name, at in zip(node.inputs, slices))


@kernel
class PortableConcatenate(Kernel):
    op = "concatenate"
    backend = "portable"
    sources = ("concatenate",)

    def emit(self, ctx, node, p, plan):
        if written_in_place(ctx, node):
            return "/* written in place by its producers */"
        params = ctx.params("mr_concatenate_params", {
            "num_inputs": len(node.inputs), "outer": p["outer"],
            "row_bytes": ctx.const_array(np.array(p["row_bytes"], np.int32), "int32_t")})
        pointers = ", ".join(f"(const void *){ctx.tensor(name)}" for name in node.inputs)
        return (f"{{ const void *const inputs[{len(node.inputs)}] = {{{pointers}}}; "
                f"mr_concatenate({params}, inputs, {ctx.tensor(node.outputs[0])}); }}")
