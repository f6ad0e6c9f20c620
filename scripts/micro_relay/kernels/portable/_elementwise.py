"""The calls of the element-wise kernels (crt/src, micro_relay/elementwise.h and the unary ops' headers): one
constant parameter struct, then the tensors. Shared by the portable kernels of the unary ops (emit_unary;
UnaryKernel and LogisticKernel for the activations) and of add, subtract and multiply (BinaryKernel)."""

from __future__ import annotations

from ...codegen.c_text import float_literal
from ..base import Kernel

# the quantized fields of mr_addsub_q_params, as ops/_elementwise.py addsub_params prepares them
ADDSUB_FIELDS = ("a_offset", "b_offset", "out_offset", "left_shift", "a_mult", "a_shift", "b_mult", "b_shift",
                 "out_mult", "out_shift")


def c_broadcast(layout: dict) -> str:
    """C99 initializer of an mr_broadcast struct (elementwise.h) from ops/_elementwise.py broadcast_layout."""
    def arr(values):
        return "{" + ", ".join(str(int(v)) for v in values) + "}" if values else "{0}"

    return (f"{{ .rank = {layout['rank']}, .dims = {arr(layout['dims'])}, "
            f".a_strides = {arr(layout['a_strides'])}, .b_strides = {arr(layout['b_strides'])} }}")


def single_rounding_field(p: dict) -> dict:
    """The parameter-struct field of a node with rounding "single" (ops/_common.py ROUNDING): add and subtract
    carry their shared exponent, the other integer kernels a flag. Nothing for TFLite's double rounding, so
    that the C of every other model stays as it was."""
    if p.get("single_shift"):
        return {"single_shift": p["single_shift"]}
    return {"single_round": 1} if p.get("single") else {}


def c_floats(params: dict, *names: str) -> dict:
    return {n: float_literal(params[n]) for n in names}


def emit_unary(ctx, node, kernel: str, kind: str, struct: str, fields: dict) -> str:
    """The call `mr_<kernel>_<kind>(&params, in, out);` with a constant params struct."""
    params = ctx.params(struct, fields)
    return f"mr_{kernel}_{kind}({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"


class UnaryKernel(Kernel):
    """An activation (relu, relu6, sigmoid, tanh): float32 gets mr_<op>_f32_params with the size only, the
    integer kinds mr_<op>_<q_struct>_params with the prepared fields `q_fields`, in that order."""

    backend = "portable"
    q_struct = "q"
    q_fields: tuple[str, ...] = ()

    def emit(self, ctx, node, p, plan):
        kernel = self.sources[0]
        if p["kind"] == "f32":
            return emit_unary(ctx, node, kernel, "f32", f"mr_{kernel}_f32_params", {"size": p["size"]})
        fields = {k: p[k] for k in self.q_fields}
        return emit_unary(ctx, node, kernel, p["kind"], f"mr_{kernel}_{self.q_struct}_params", fields)


class BinaryKernel(Kernel):
    """add / subtract / multiply (crt/src/mr_<op>.c): `mr_<op>_<kind>(&params, a, b, out);` with the
    broadcast layout, the size and the clamp, plus the quantized fields `c_fields` of the op's prepare."""

    backend = "portable"
    params_struct = ""  # C parameter struct mr_<this>_{q,f32}_params; empty: the kernel's own name
    c_fields: tuple[str, ...] = ()  # the fields prepare gives (a single-rounding node's prepare may give fewer)

    def emit(self, ctx, node, p, plan):
        kernel = self.sources[0]
        struct_base = self.params_struct or kernel
        fields = {"bc": c_broadcast(p["layout"]), "size": p["size"]}
        if p["kind"] == "f32":
            fields.update(c_floats(p, "act_min", "act_max"))
            struct = f"mr_{struct_base}_f32_params"
        else:
            fields.update({k: p[k] for k in self.c_fields if k in p})
            fields.update(act_min=p["act_min"], act_max=p["act_max"])
            fields.update(single_rounding_field(p))
            struct = f"mr_{struct_base}_q_params"
        a, b = node.inputs
        params = ctx.params(struct, fields)
        return f"mr_{kernel}_{p['kind']}({params}, {ctx.tensor(a)}, {ctx.tensor(b)}, {ctx.tensor(node.outputs[0])});"


class AddSubKernel(BinaryKernel):
    """add and subtract: one parameter layout (elementwise.h mr_addsub_*_params)."""

    params_struct = "addsub"
    c_fields = ADDSUB_FIELDS


class LogisticKernel(UnaryKernel):
    """sigmoid and tanh: float32, or int8 with the Q4.27 input multiplier and radius (ops/sigmoid.py
    logistic_params)."""

    q_struct = "s8"
    q_fields = ("size", "in_zp", "mult", "shift", "radius")
