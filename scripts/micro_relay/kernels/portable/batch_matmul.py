"""nn.batch_matmul on the portable kernel (crt/src/mr_batch_matmul.c): no scratch; operands stored transposed
(adj_x, adj_y) are read in place through the steps the op prepares."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel
from ._elementwise import single_rounding_field

MAX_BATCH = 4  # MR_BATCH_MATMUL_MAX_BATCH
SHAPE_FIELDS = ("rows", "depth", "cols", "lhs_row_step", "lhs_k_step", "rhs_k_step", "rhs_col_step")


def _arr(values) -> str:
    values = list(values) + [0] * (MAX_BATCH - len(values))
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


@kernel
class PortableBatchMatmul(Kernel):
    op = "nn.batch_matmul"
    backend = "portable"
    sources = ("batch_matmul",)

    def report(self, graph, node, p, plan):
        return f"{p['rows']}x{p['depth']} @ {p['depth']}x{p['cols']} per batch, read in place"

    def emit(self, ctx, node, p, plan):
        shape = ", ".join([f".batch_rank = {p['batch_rank']}", f".batch_dims = {_arr(p['batch_dims'])}",
                           f".lhs_batch_strides = {_arr(p['lhs_batch_strides'])}",
                           f".rhs_batch_strides = {_arr(p['rhs_batch_strides'])}",
                           *(f".{k} = {int(p[k])}" for k in SHAPE_FIELDS)])
        fields = {"s": "{ " + shape + " }"}
        if p["kind"] == "f32":
            struct = "mr_batch_matmul_f32_params"
        else:
            struct = "mr_batch_matmul_q_params"
            fields.update({k: int(p[k]) for k in ("lhs_offset", "rhs_offset", "out_offset", "mult", "shift")})
            fields.update(single_rounding_field(p))
        lhs, rhs = node.inputs
        params = ctx.params(struct, fields)
        return (f"mr_batch_matmul_{p['kind']}({params}, {ctx.tensor(lhs)}, {ctx.tensor(rhs)}, "
                f"{ctx.tensor(node.outputs[0])});")
