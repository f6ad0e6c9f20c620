"""reshape: no runtime kernel. The planner aliases output and input (OpDef.alias), so nothing runs, except for
a reshape of a constant (left when constant folding did not run) or of a state (whose storage is not the
arena, and may be assigned while the reshape's output is still read): an inline byte copy into the arena."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel
from .assign import byte_copy


@kernel
class PortableReshape(Kernel):
    op = "reshape"
    backend = "portable"

    def emit(self, ctx, node, p, plan):
        source = node.inputs[0]
        tensor = ctx.graph.tensors[source]
        if not (tensor.is_constant or tensor.is_state):
            return ""
        return byte_copy(ctx.tensor(source), ctx.tensor(node.outputs[0]), ctx.graph.type_of(source).nbytes)
