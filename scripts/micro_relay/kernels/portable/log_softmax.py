"""nn.log_softmax on the portable kernel (crt/src/mr_log_softmax.c): float32 and int8 (gemmlowp fixed point),
one row at a time."""

from __future__ import annotations

from ..base import Kernel
from ..registry import kernel
from ._elementwise import emit_unary

S8_FIELDS = ("rows", "depth", "mult", "shift", "rev_mult", "rev_shift", "diff_min")


@kernel
class PortableLogSoftmax(Kernel):
    op = "nn.log_softmax"
    backend = "portable"
    sources = ("log_softmax",)

    def emit(self, ctx, node, p, plan):
        if p["kind"] == "f32":
            return emit_unary(ctx, node, "log_softmax", "f32", "mr_log_softmax_f32_params",
                              {"rows": p["rows"], "depth": p["depth"]})
        return emit_unary(ctx, node, "log_softmax", "s8", "mr_log_softmax_s8_params", {k: p[k] for k in S8_FIELDS})
