"""The call of a convolution kernel (conv2d, depthwise_conv2d, conv2d_transpose) with its parameter struct
(mr_conv2d_q_params or mr_conv2d_f32_params, crt/include/micro_relay/conv2d.h): shared by the portable, Arm DSP
and CMSIS-NN kernels of those ops, which differ in the function called and the scratch passed."""

from __future__ import annotations

from ...codegen.c_text import float_literal


def function_name(prefix: str, p: dict, suffix: str = "") -> str:
    """The runtime function for the node's kind: PREFIX_<s8|s16|f32>[_wide]SUFFIX."""
    return f"{prefix}_{p['kind']}{'_wide' if p['wide'] else ''}{suffix}"


def emit_call(ctx, node, p: dict, function: str, bias_expr: str | None = None, scratch_bytes: int = 0,
              scratch_arg: str | None = None, folded_bias: bool = True, weights_expr: str | None = None) -> str:
    """The call of `function` with the node's constant parameter struct (mr_conv2d_q_params or
    mr_conv2d_f32_params). scratch_bytes: the struct's scratch_bytes field (the scratch the kernel is given);
    scratch_arg: the last argument, "planned" for the node's planned arena scratch, "NULL", or None for a
    function without one. folded_bias=False leaves the folded bias out (CMSIS-NN adds the offset itself).
    weights_expr: the weights argument instead of the node's weight tensor (a layout the kernel wants)."""
    fields = {"geo": p["geometry"].c_initializer()}
    if p["kind"] == "f32":
        fields.update(act_min=float_literal(p["act_min"]), act_max=float_literal(p["act_max"]))
        params = ctx.params("mr_conv2d_f32_params", fields)
    else:
        folded = p.get("folded_bias") if folded_bias else None
        fields.update(in_zp=p["in_zp"], out_zp=p["out_zp"], act_min=p["act_min"], act_max=p["act_max"],
                      mult=ctx.const_array(p["mult"], "int32_t", "requantization"),
                      shift=ctx.const_array(p["shift"], "int32_t", "requantization"),
                      folded_bias="NULL" if folded is None else ctx.const_array(folded, "int32_t", "biases"))
        if scratch_bytes:
            fields["scratch_bytes"] = scratch_bytes
        if p.get("single"):
            fields["single_round"] = 1
        params = ctx.params("mr_conv2d_q_params", fields)
    bias = node.inputs[2] if len(node.inputs) > 2 else ""
    weights = ctx.tensor(node.inputs[1]) if weights_expr is None else weights_expr
    args = [params, ctx.tensor(node.inputs[0]), weights,
            ctx.tensor(bias) if bias_expr is None else bias_expr, ctx.tensor(node.outputs[0])]
    if scratch_arg is not None:
        args.append(ctx.scratch() if scratch_arg == "planned" else scratch_arg)
    return f"{function}({', '.join(args)});"
