"""nn.log_softmax on the portable kernel (crt/src/mr_log_softmax.c): float32, one row at a time."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel
from ._elementwise import emit_unary


@kernel
class PortableLogSoftmax(Kernel):
    op = "nn.log_softmax"
    backend = "portable"
    sources = ("log_softmax",)

    def emit(self, ctx, node, p, plan):
        return emit_unary(ctx, node, "log_softmax", "f32", "mr_log_softmax_f32_params",
                          {"rows": p["rows"], "depth": p["depth"]})
