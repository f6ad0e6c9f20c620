"""nn.svdf on the portable kernels (crt/src/mr_svdf.c): int8 with int16 or int8 state, and float32. The updated
state goes to the node's second output, which an assign then copies into the state's storage, unless that
output is placed in the state's storage itself (plan/state.py; the kernel shifts each row in place)."""

from __future__ import annotations

from ...codegen.c_text import float_literal
from ..base import Kernel, KernelPlan
from ..registry import kernel

_SHAPE = ("batch", "input_size", "filters", "units", "rank", "memory")
_QUANT = ("in_zp", "state_zp", "out_zp", "mult1", "shift1", "mult2", "shift2", "state_min", "state_max")


@kernel
class PortableSvdf(Kernel):
    op = "nn.svdf"
    backend = "portable"
    sources = ("svdf",)

    def plan(self, target, graph, node, params, options):
        return KernelPlan(sources=self.sources, inplace_outputs=((1, 3),))  # new state over the old one

    def emit(self, ctx, node, p, plan):
        fields = {key: p[key] for key in _SHAPE}
        if p["kind"] == "f32":
            fields.update(act_min=float_literal(p["act_min"]), act_max=float_literal(p["act_max"]))
        else:
            fields.update({key: int(p[key]) for key in _QUANT})
        params = ctx.params(f"mr_svdf_{'f32' if p['kind'] == 'f32' else 'q'}_params", fields)
        data, wf, wt, state, bias = node.inputs
        out, new_state = node.outputs
        args = ", ".join(ctx.tensor(t) for t in (data, wf, wt, bias, state, new_state, out))
        return f"mr_svdf_{p['kind']}({params}, {args});"
