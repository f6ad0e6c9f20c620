"""signal.rfft on the portable kernel (crt/src/mr_signal_rfft.c): the half-length complex FFT runs in arena
scratch (int32 pairs for both integer widths, float pairs for float), then kiss_fftr's split writes the bins."""

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
    function = "mr_signal_rfft"

    def plan(self, target, graph, node, p, options):
        return KernelPlan(scratch_bytes=8 * p["n"], sources=self.sources)

    def report(self, graph, node, p, plan):
        return f"{p['frames']} frame(s), {len(p['radix'])} stages (radix {'x'.join(map(str, p['radix']))})"

    def emit(self, ctx, node, p, plan):
        pad = MAX_STAGES - len(p["radix"])
        params = ctx.params("mr_signal_rfft_params", {
            "frames": p["frames"], "input_length": p["input_length"], "n": p["n"], "bits": p["bits"],
            "stages": len(p["radix"]), "radix": c_array(p["radix"] + [0] * pad), "m": c_array(p["m"] + [0] * pad),
            "perm": ctx.const_array(p["perm"], "int32_t"), **self._tables(ctx, p)})
        suffix, scalar = {16: ("s16", "int32_t"), 32: ("s32", "int32_t"), 0: ("f32", "float")}[p["bits"]]
        return (f"{self.function}_{suffix}({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])}, "
                f"({scalar} *){ctx.scratch()});")

    @staticmethod
    def _tables(ctx, p) -> dict:
        """The twiddles in the build's type; the other build's pointers NULL."""
        c_type, names = ("float", ("twiddles_f", "super_twiddles_f")) if p["bits"] == 0 else \
            ("int32_t", ("twiddles", "super_twiddles"))
        tables = {"twiddles": "NULL", "super_twiddles": "NULL", "twiddles_f": "NULL", "super_twiddles_f": "NULL"}
        tables[names[0]] = ctx.const_array(p["twiddles"], c_type)
        tables[names[1]] = ctx.const_array(p["super_twiddles"] or [0], c_type)
        return tables
