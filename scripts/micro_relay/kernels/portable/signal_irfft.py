"""signal.irfft on the portable kernel (crt/src/mr_signal_rfft.c, the forward FFT's butterflies run inverse): the
merged half-length spectrum and its work buffer in arena scratch (int32 pairs for both integer widths, float
pairs for float)."""

from __future__ import annotations

from ..base import KernelPlan
from ..registry import kernel
from ._pooling import c_array
from .signal_rfft import MAX_STAGES, PortableSignalRfft


@kernel
class PortableSignalIrfft(PortableSignalRfft):
    op = "signal.irfft"

    def plan(self, target, graph, node, p, options):
        return KernelPlan(scratch_bytes=16 * p["n"], sources=self.sources)

    def emit(self, ctx, node, p, plan):
        pad = MAX_STAGES - len(p["radix"])
        params = ctx.params("mr_signal_rfft_params", {
            "frames": p["frames"], "input_length": 0, "n": p["n"], "bits": p["bits"],
            "stages": len(p["radix"]), "radix": c_array(p["radix"] + [0] * pad), "m": c_array(p["m"] + [0] * pad),
            "perm": ctx.const_array(p["perm"], "int32_t"), **self._tables(ctx, p)})
        suffix, scalar = {16: ("s16", "int32_t"), 32: ("s32", "int32_t"), 0: ("f32", "float")}[p["bits"]]
        return (f"mr_signal_irfft_{suffix}({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])}, "
                f"({scalar} *){ctx.scratch()});")
