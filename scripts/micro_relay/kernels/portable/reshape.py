"""reshape: no runtime kernel. The planner aliases output and input (OpDef.alias), so nothing runs, except for
a reshape of a constant (left when constant folding did not run): an inline byte copy into the arena."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableReshape(Kernel):
    op = "reshape"
    backend = "portable"

    def emit(self, ctx, node, p, plan):
        source = node.inputs[0]
        if not ctx.graph.tensors[source].is_constant:
            return ""
        nbytes = ctx.graph.type_of(source).nbytes
        return (f"{{ size_t i; const uint8_t *src = (const uint8_t *){ctx.tensor(source)}; "
                f"uint8_t *dst = (uint8_t *){ctx.tensor(node.outputs[0])}; "
                f"for (i = 0; i < {nbytes}u; ++i) {{ dst[i] = src[i]; }} }}")
