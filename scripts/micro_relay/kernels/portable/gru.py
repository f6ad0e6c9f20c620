"""nn.gru on the portable kernel (crt/src/mr_gru.c): float32, one batch row at a time, its gate values in
arena scratch."""

from __future__ import annotations

from ..base import Kernel, KernelPlan
from ..registry import kernel

SOURCES = ("gru",)


@kernel
class PortableGru(Kernel):
    op = "nn.gru"
    backend = "portable"
    sources = SOURCES

    def plan(self, target, graph, node, p, options):
        """Scratch: the input and recurrent gate values (3 units each) and r * h (units), in float."""
        return KernelPlan(scratch_bytes=7 * p["units"] * 4, sources=SOURCES)

    def report(self, graph, node, p, plan):
        return f"{p['batch']} row(s) x {p['time']} steps, 3 gates of {p['units']} units"

    def emit(self, ctx, node, p, plan):
        fields = {k: p[k] for k in ("batch", "time", "input_size", "units", "time_major", "linear_before_reset")}
        data, w, r, wb, rb, h0 = (ctx.tensor(n) for n in node.inputs)
        out, h = (ctx.tensor(n) for n in node.outputs)
        return (f"mr_gru_f32({ctx.params('mr_gru_f32_params', fields)}, {data}, {w}, {r}, {wb}, {rb}, {h0}, "
                f"{out}, {h}, (float *){ctx.scratch()});")
