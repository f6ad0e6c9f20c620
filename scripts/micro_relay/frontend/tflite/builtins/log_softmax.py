"""LOG_SOFTMAX: nn.log_softmax over the last axis (the builtin has no axis or beta)."""

from __future__ import annotations

from tflite.BuiltinOperator import BuiltinOperator as B

from .context import converts, make_node


@converts(B.LOG_SOFTMAX)
def log_softmax(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 1)
    return [make_node(ctx, "nn.log_softmax", inputs[:1], outputs)]
