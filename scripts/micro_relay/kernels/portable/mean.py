"""mean on the portable kernel (crt/src/mr_mean.c): kept and reduced axes as fixed-rank views."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel
from ._pooling import c_array


@kernel
class PortableMean(Kernel):
    op = "mean"
    backend = "portable"
    sources = ("mean",)

    def emit(self, ctx, node, p, plan):
        fields = {k: c_array(p[k]) for k in ("outer_dims", "outer_steps", "inner_dims", "inner_steps")}
        fields["count"] = p["count"]
        if p["kind"] == "f32":
            params = ctx.params("mr_mean_f32_params", fields)
        else:
            fields.update(in_zp=p["in_zp"], out_zp=p["out_zp"], mult=p["mult"], shift=p["shift"])
            params = ctx.params("mr_mean_q_params", fields)
        return f"mr_mean_{p['kind']}({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
