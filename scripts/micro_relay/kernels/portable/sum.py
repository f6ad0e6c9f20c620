"""sum on the portable kernels: float32 on crt/src/mr_reduce.c, int8/int16 on the mean kernel
(crt/src/mr_mean.c), which is TFLite's QuantizedMeanOrSum; sum's multiplier is not divided by the count."""

from __future__ import annotations

from ..base import KernelPlan
from ..registry import kernel
from ._reduce import ReduceKernel, view_fields


@kernel
class PortableSum(ReduceKernel):
    op = "sum"
    sources = ("reduce", "mean")

    def plan(self, target, graph, node, p, options):
        return KernelPlan(sources=("reduce",) if p["kind"] == "f32" else ("mean",))

    def emit(self, ctx, node, p, plan):
        if p["kind"] == "f32":
            return super().emit(ctx, node, p, plan)
        fields = view_fields(p)
        fields.update(count=p["count"], in_zp=p["in_zp"], out_zp=p["out_zp"], mult=p["mult"], shift=p["shift"])
        params = ctx.params("mr_mean_q_params", fields)
        return f"mr_mean_{p['kind']}({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
