"""The calls of the binary math kernels (crt/src/mr_minmax.c, mr_compare.c, mr_logical.c, mr_divide.c,
mr_squared_difference.c, mr_floor_div.c, mr_power.c, mr_prelu.c): `mr_<function>_<kind>(&params, a, b, out);`
with the broadcast layout and size, plus the fields of the struct the kind takes (ops/_binary.py prepares
them)."""

from __future__ import annotations

from ..base import Kernel
from ._elementwise import ADDSUB_FIELDS, c_broadcast, c_floats

COMPARE_S8_FIELDS = ("a_offset", "b_offset", "left_shift", "a_mult", "a_shift", "b_mult", "b_shift")


class BroadcastKernel(Kernel):
    """`structs` maps a kind to (C struct, prepared integer fields, prepared float fields); kinds not listed
    take mr_binary_params (broadcast and size only)."""

    backend = "portable"
    function = ""  # mr_<function>_<kind>; empty: the op's name without its "nn." prefix
    structs: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {}

    def emit(self, ctx, node, p, plan):
        struct, ints, floats = self.structs.get(p["kind"], ("mr_binary_params", (), ()))
        fields = {"bc": c_broadcast(p["layout"]), "size": p["size"]}
        fields.update({k: int(p[k]) for k in ints})
        fields.update(c_floats(p, *floats))
        function = self.function or self.op.removeprefix("nn.")
        a, b = node.inputs
        params = ctx.params(struct, fields)
        return (f"mr_{function}_{p['kind']}({params}, {ctx.tensor(a)}, {ctx.tensor(b)}, "
                f"{ctx.tensor(node.outputs[0])});")


class MinMaxKernel(BroadcastKernel):
    sources = ("minmax",)


class CompareKernel(BroadcastKernel):
    sources = ("compare",)
    structs = {"s8": ("mr_compare_s8_params", COMPARE_S8_FIELDS, ())}


class LogicalKernel(BroadcastKernel):
    sources = ("logical",)


class FloorKernel(BroadcastKernel):
    sources = ("floor_div",)


__all__ = ["ADDSUB_FIELDS", "BroadcastKernel", "CompareKernel", "FloorKernel", "LogicalKernel", "MinMaxKernel"]
