"""The call shared by the strided-view ops (broadcast_to, tile, nn.space_to_depth, nn.depth_to_space): the
transpose kernel (crt/src/mr_transpose.c) with the view ops/_movement.py view_params prepared, inside C loops
over the view's axes beyond the kernel's six."""

from __future__ import annotations

from ..base import Kernel
from ._pooling import c_array


class ViewKernel(Kernel):
    backend = "portable"
    sources = ("transpose",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_transpose_params", {
            "elem_size": p["elem_size"], "out_dims": c_array(p["out_dims"]), "in_step": c_array(p["in_step"])})
        source, result = ctx.tensor(node.inputs[0]), ctx.tensor(node.outputs[0])
        loops = p.get("loops", [])
        if not loops:
            return f"mr_transpose({params}, {source}, {result});"
        names = [f"i{k}" for k in range(len(loops))]
        heads = " ".join(f"for ({i} = 0; {i} < {d}; ++{i})" for i, (d, _, _) in zip(names, loops))
        in_offset = " + ".join(f"{i} * {s}" for i, (_, s, _) in zip(names, loops))
        out_offset = " + ".join(f"{i} * {o}" for i, (_, _, o) in zip(names, loops))
        return (f"{{ int32_t {', '.join(names)}; {heads} {{ "
                f"mr_transpose({params}, {source} + ({in_offset}), {result} + ({out_offset})); }} }}")
