"""signal.filter_bank_log on the portable kernel (crt/src/mr_signal_filter_bank_log.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableSignalFilterBankLog(Kernel):
    op = "signal.filter_bank_log"
    backend = "portable"
    sources = ("signal_filter_bank_log",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_signal_filter_bank_log_params", {
            "size": p["size"], "correction_bits": p["correction_bits"], "scale": p["scale"]})
        return f"mr_signal_filter_bank_log({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"
