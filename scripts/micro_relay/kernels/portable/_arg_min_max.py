"""The call of the argmax / argmin kernels (crt/src/mr_arg_min_max.c): [outer, axis, inner] sizes."""

from __future__ import annotations

from ..base import Kernel


class ArgMinMaxKernel(Kernel):
    """`mr_<op>_<kind>_<index kind>(&params, in, out);`"""

    backend = "portable"
    sources = ("arg_min_max",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_arg_min_max_params", {k: p[k] for k in ("outer", "axis_size", "inner")})
        return (f"mr_{self.op}_{p['kind']}_{p['index_kind']}({params}, {ctx.tensor(node.inputs[0])}, "
                f"{ctx.tensor(node.outputs[0])});")
