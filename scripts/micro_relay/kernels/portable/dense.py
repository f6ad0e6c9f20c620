"""nn.dense on the portable kernels (crt/src/mr_dense.c): every dtype, every target, no scratch. int8 takes
mr_dense_s8_portable: one unit at a time, a plain dot product where the bias is folded."""

from __future__ import annotations

from ...codegen.c_text import float_literal
from ..base import Kernel
from ..registry import kernel
from ._elementwise import single_rounding_field

SOURCES = ("dense",)
PORTABLE_S8 = "mr_dense_s8_portable"  # the int8 entry that every build keeps portable (a DSP build too)


def emit_dense(ctx, node, p: dict, function: str, folded_bias: bool = True, requant=None) -> str:
    """The call of `function` with the node's mr_dense_q_params / mr_dense_f32_params. folded_bias=False leaves
    the folded bias out (CMSIS-NN adds the offsets itself); requant: the DSP kernel's requantization words."""
    data, weight, bias = node.inputs
    fields = {"rows": p["rows"], "depth": p["depth"], "units": p["units"]}
    if p["kind"] == "f32":
        fields.update(act_min=float_literal(p["act_min"]), act_max=float_literal(p["act_max"]))
    else:
        fields.update(in_zp=p["in_zp"], w_zp=p["w_zp"], out_zp=p["out_zp"], act_min=p["act_min"],
                      act_max=p["act_max"], per_channel=int(len(p["mult"]) > 1),
                      mult=ctx.const_array(p["mult"], "int32_t", "requantization"),
                      shift=ctx.const_array(p["shift"], "int32_t", "requantization"),
                      folded_bias=ctx.const_array(p["folded_bias"], "int32_t", "biases")
                      if "folded_bias" in p and folded_bias else "NULL")
        if requant is not None:
            fields["requant"] = ctx.const_array(requant, "int32_t", "requantization")
        fields.update(single_rounding_field(p))
    params = ctx.params(f"mr_dense_{'f32' if p['kind'] == 'f32' else 'q'}_params", fields)
    return (f"{function}({params}, {ctx.tensor(data)}, {ctx.tensor(weight)}, {ctx.tensor(bias)}, "
            f"{ctx.tensor(node.outputs[0])});")


@kernel
class PortableDense(Kernel):
    op = "nn.dense"
    backend = "portable"
    sources = SOURCES

    def report(self, graph, node, p, plan):
        if p["kind"] != "s8":
            return ""
        if "folded_bias" not in p:
            return "one unit at a time, zero points subtracted"
        return "one unit at a time (dot product, folded bias)"

    def emit(self, ctx, node, p, plan):
        if p["kind"] == "s8":
            return emit_dense(ctx, node, p, PORTABLE_S8)
        return emit_dense(ctx, node, p, f"mr_dense_{p['kind']}" + ("_wide" if p.get("wide") else ""))
