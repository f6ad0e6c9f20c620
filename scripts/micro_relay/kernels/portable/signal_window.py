"""signal.window on the portable kernel (crt/src/mr_signal_window.c)."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel


@kernel
class PortableSignalWindow(Kernel):
    op = "signal.window"
    backend = "portable"
    sources = ("signal_window",)

    def emit(self, ctx, node, p, plan):
        params = ctx.params("mr_signal_window_params", {
            "size": p["size"], "window_size": p["window_size"], "shift": p["shift"]})
        return (f"mr_signal_window({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.inputs[1])}, "
                f"{ctx.tensor(node.outputs[0])});")
