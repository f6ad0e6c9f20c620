"""nn.lstm on the portable kernel (crt/src/mr_lstm.c): TFLite Micro's step, one batch row at a time, with its
four gate buffers in arena scratch (one row's worth: TFLite Micro plans a whole batch's)."""

from __future__ import annotations

from ...codegen.c_text import float_literal
from ...ops import _lstm as L
from ..base import Kernel, KernelPlan
from ..registry import kernel

SOURCES = ("lstm",)
_Q_FIELDS = ("in_zp", "h_zp", "forget_mult", "forget_shift", "update_mult", "update_shift", "hidden_mult",
             "hidden_shift", "h_min", "h_max", "has_clip", "cell_clip", "tanh_mult", "tanh_shift")
_C_TYPES = {"s8": ("int8_t", "int32_t"), "s16": ("int8_t", "int64_t"), "f32": ("float", "float")}


def _array(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


@kernel
class PortableLstm(Kernel):
    op = "nn.lstm"
    backend = "portable"
    sources = SOURCES

    def plan(self, target, graph, node, p, options):
        """Scratch: four gate buffers of `units` cell values (int16, or float). The new h and c may be the
        old ones' bytes (the kernel copies the old into the new, then updates the new: over itself, a no-op),
        so the states are updated in place and their assigns copy nothing (plan/state.py)."""
        return KernelPlan(scratch_bytes=4 * p["units"] * (4 if p["kind"] == "f32" else 2), sources=SOURCES,
                          inplace_outputs=((1, L.H_STATE), (2, L.C_STATE)))

    def report(self, graph, node, p, plan):
        return f"{p['batch']} row(s) x {p['time']} steps, 4 gates of {p['units']} units"

    def emit(self, ctx, node, p, plan):
        fields = {k: p[k] for k in ("batch", "time", "input_size", "units", "time_major")}
        if p["kind"] == "f32":
            fields["cell_clip"] = float_literal(p["cell_clip"])
            struct, cell = "mr_lstm_f32_params", "float"
        else:
            fields.update({k: _array(p[k]) for k in ("in_mult", "in_shift", "rec_mult", "rec_shift")})
            fields.update({k: p[k] for k in _Q_FIELDS})
            fields["sigmoid_table"] = ctx.const_array(L.c_sigmoid_table(), "int16_t")
            folded = p.get("folded_bias")
            fields["folded_bias"] = "NULL" if folded is None else ctx.const_array(folded.ravel(), "int32_t", "biases")
            struct, cell = "mr_lstm_q_params", "int16_t"
        weight_type, bias_type = _C_TYPES[p["kind"]]
        t = node.inputs
        weights = ", ".join(ctx.tensor(t[L.W_INPUT + k]) for k in range(8))
        biases = ", ".join(ctx.tensor(t[L.BIAS + k]) for k in range(4))
        output, h, c = (ctx.tensor(name) for name in node.outputs)
        return (f"mr_lstm_{p['kind']}({ctx.params(struct, fields)}, {ctx.tensor(t[L.INPUT])}, "
                f"(const {weight_type} *const[8]){{{weights}}}, (const {bias_type} *const[4]){{{biases}}}, "
                f"{ctx.tensor(t[L.H_STATE])}, {ctx.tensor(t[L.C_STATE])}, {output}, {h}, {c}, "
                f"({cell} *){ctx.scratch()});")
