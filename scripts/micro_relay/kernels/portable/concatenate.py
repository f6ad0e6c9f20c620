"""concatenate on the portable kernel (crt/src/mr_concatenate.c): raw rows of every input in turn."""

from __future__ import annotations

import numpy as np

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableConcatenate(Kernel):
    op = "concatenate"
    backend = "portable"
    sources = ("concatenate",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_concatenate_params", {
            "num_inputs": len(node.inputs), "outer": p["outer"],
            "row_bytes": ctx.const_array(np.array(p["row_bytes"], np.int32), "int32_t")})
        pointers = ", ".join(f"(const void *){ctx.tensor(name)}" for name in node.inputs)
        return (f"{{ const void *const inputs[{len(node.inputs)}] = {{{pointers}}}; "
                f"mr_concatenate({params}, inputs, {ctx.tensor(node.outputs[0])}); }}")
