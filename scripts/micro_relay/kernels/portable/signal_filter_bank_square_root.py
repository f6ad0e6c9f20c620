"""signal.filter_bank_square_root on the portable kernel (crt/src/mr_signal_filter_bank_square_root.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableSignalFilterBankSquareRoot(Kernel):
    op = "signal.filter_bank_square_root"
    backend = "portable"
    sources = ("signal_filter_bank_square_root",)

    def emit(self, ctx, node, p, plan):
        return (f"mr_signal_filter_bank_square_root({p['size']}, {ctx.tensor(node.inputs[0])}, "
                f"{ctx.tensor(node.inputs[1])}, {ctx.tensor(node.outputs[0])});")
