"""The calls of the reduction kernels (crt/src/mr_reduce.c; integer sum runs crt/src/mr_mean.c): the
kept/reduced view of ops/_reduce.py as constant arrays in the parameter struct."""

from __future__ import annotations

from ..base import Kernel
from ._pooling import c_array

VIEW_FIELDS = ("outer_dims", "outer_steps", "inner_dims", "inner_steps")


def view_fields(p) -> dict:
    return {k: c_array(p[k]) for k in VIEW_FIELDS}


class ReduceKernel(Kernel):
    """`mr_reduce_<op>_<kind>(&params, in, out);` with an mr_reduce_params view."""

    backend = "portable"
    sources = ("reduce",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_reduce_params", view_fields(p))
        return (f"mr_reduce_{self.op}_{p['kind']}({params}, {ctx.tensor(node.inputs[0])}, "
                f"{ctx.tensor(node.outputs[0])});")
