"""The calls of the unary math kernels: float32 ones in crt/src/mr_unary_f32.c (one parameter struct for all,
mr_unary_f32_params), int8 ones as a 256-byte table lookup (crt/src/mr_lut.c, the table prepared by the op:
ops/_unary.py), and the int16 table interpolation of sigmoid and tanh (crt/src/mr_logistic16.c)."""

from __future__ import annotations

from ...codegen.c_text import float_literal
from ..base import Kernel, KernelPlan
from ._elementwise import emit_unary


def emit_lut_s8(ctx, node, p) -> str:
    """`mr_lut_s8(&{size, valid_min, table}, in, out);` with the op's 256-entry table as a constant array."""
    fields = {"size": p["size"], "valid_min": p["valid_min"], "table": ctx.const_array(p["table"], "int8_t")}
    return emit_unary(ctx, node, "lut", "s8", "mr_lut_s8_params", fields)


class UnaryMathKernel(Kernel):
    """An op of ops/_unary.py: float32 calls mr_<c_name>_f32 (crt/src/mr_unary_f32.c), int8 the table lookup;
    int16 ones name their source in `s16_sources` and override `emit_s16`."""

    backend = "portable"
    c_name = ""
    s16_sources: tuple[str, ...] = ()

    def plan(self, target, graph, node, params, options):
        sources = {"f32": ("unary_f32",), "s8": ("lut",), "s16": self.s16_sources}[params["kind"]]
        return KernelPlan(sources=sources)

    def emit(self, ctx, node, p, plan):
        if p["kind"] == "s8":
            return emit_lut_s8(ctx, node, p)
        if p["kind"] == "s16":
            return self.emit_s16(ctx, node, p)
        fields = {"size": p["size"], "alpha": float_literal(p["alpha"]), "beta": float_literal(p["beta"])}
        return emit_unary(ctx, node, self.float_name(p), "f32", "mr_unary_f32_params", fields)

    def float_name(self, p: dict) -> str:
        """The float32 function is mr_<this>_f32."""
        return self.c_name

    def emit_s16(self, ctx, node, p) -> str:
        raise NotImplementedError


class QuantizedOnceMixin:
    """sigmoid and tanh of a QDQ model (rounding "single"): the op prepared ONNX's meaning as a 256-entry
    table (ops/_unary.py quantized_once), which the table lookup runs instead of TFLite's fixed point."""

    def plan(self, target, graph, node, params, options):
        if "table" in params:
            return KernelPlan(sources=("lut",))
        return super().plan(target, graph, node, params, options)

    def emit(self, ctx, node, p, plan):
        if "table" in p:
            return emit_lut_s8(ctx, node, p)
        return super().emit(ctx, node, p, plan)


class Logistic16Mixin:
    """sigmoid and tanh: the int16 kind calls mr_<op>_s16 (crt/src/mr_logistic16.c) and links the table."""

    def plan(self, target, graph, node, params, options):
        if params["kind"] == "s16":
            return KernelPlan(sources=("logistic16", "sigmoid_table"))
        return super().plan(target, graph, node, params, options)

    def emit(self, ctx, node, p, plan):
        if p["kind"] == "s16":
            fields = {k: p[k] for k in ("size", "mult", "shift")}
            params = ctx.params("mr_logistic16_params", fields)
            return (f"mr_{self.sources[0]}_s16({params}, {ctx.tensor(node.inputs[0])}, "
                    f"{ctx.tensor(node.outputs[0])});")
        return super().emit(ctx, node, p, plan)
