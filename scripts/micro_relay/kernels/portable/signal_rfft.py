"""signal.rfft on the portable kernel (crt/src/mr_signal_rfft.c): the half-length complex FFT runs in arena
scratch (int32 pairs, both widths), then kiss_fftr's split writes the output bins."""

from __future__ import annotations

from ..base import Kernel, KernelPlan
from ..registry import kernel
from ._pooling import c_array

MAX_STAGES = 16  # MR_SIGNAL_RFFT_MAX_STAGES


@kernel
class PortableSignalRfft(Kernel):
    op = "signal.rfft"
    backend = "portable"
    sources = ("signal_rfft",)

    def plan(self, target, graph, node, p, options):
        return KernelPlan(scratch_bytes=8 * p["n"], sources=self.sources)

    def report(self, graph, node, p, plan):
        return f"{p['frames']} frame(s), {len(p['radix'])} stages (radix {'x'.join(map(str, p['radix']))})"

    def emit(self, ctx, node, p, plan):
        pad = MAX_STAGES - len(p["radix"])
        params = ctx.params("mr_signal_rfft_params", {
            "frames": p["frames"], "input_length": p["input_length"], "n": p["n"], "bits": p["bits"],
            "stages": len(p["radix"]), "radix": c_array(p["radix"] + [0] * pad), "m": c_array(p["m"] + [0] * pad),
            "perm": ctx.const_array(p["perm"], "int32_t"), "twiddles": ctx.const_array(p["twiddles"], "int32_t"),
            "super_twiddles": ctx.const_array(p["super_twiddles"] or [0], "int32_t")})
        suffix = "s16" if p["bits"] == 16 else "s32"
        return (f"mr_signal_rfft_{suffix}({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])}, "
                f"(int32_t *){ctx.scratch()});")
