"""Converters for normalization operators: nn.layer_norm (ONNX LayerNormalization).

Relax gives the normalized axes as a list; Micro Relay's nn.layer_norm normalizes every axis from `axis` to
the last (ONNX's meaning), so the list must be such a trailing run. The normalization runs in the model's
own element order (an NHWC value is transposed back first): its axes are the model's.
"""

from __future__ import annotations

import numpy as np

from ...ir.types import DType, TensorType
from .context import QConst, Value
from .converters import converts


@converts("nn.layer_norm")
def layer_norm(ctx, attrs, args, out, hint):
    x, gamma, beta = args
    if not isinstance(x, Value):
        ctx.fail("layer_norm needs a runtime input")
    data = ctx.model_order(x, hint)
    t = ctx.type_of(data)
    if t.dtype is not DType.FLOAT32:
        ctx.fail(f"layer_norm of {t.dtype.value} is not supported (float32 only)")
    rank = t.rank
    axes = sorted({int(a) % rank for a in attrs.axes})
    if not axes or axes != list(range(axes[0], rank)):
        ctx.fail(f"layer_norm over axes {axes} of a rank-{rank} tensor is not supported (only trailing axes)")
    normalized = t.shape[axes[0]:]
    operands = []
    for what, v, center in (("scale", gamma, bool(attrs.scale)), ("bias", beta, bool(attrs.center))):
        if isinstance(v, QConst):
            v = v.real()
        if isinstance(v, np.ndarray):
            if not center:  # the importer passes the operand anyway; Relax then ignores it
                v = np.full(normalized, 0.0 if what == "bias" else 1.0, np.float32)
            v = np.broadcast_to(np.asarray(v, np.float32), normalized)
        operands.append(ctx.tensor_of(v, f"{hint}_{what}"))
    for what, name in zip(("scale", "bias"), operands):
        if ctx.type_of(name).shape != normalized:
            ctx.fail(f"layer_norm {what} of shape {list(ctx.type_of(name).shape)} does not match the normalized "
                     f"shape {list(normalized)}")
    name = ctx.node("nn.layer_norm", [data, *operands], TensorType(t.shape, DType.FLOAT32), hint,
                    axis=axes[0], epsilon=float(attrs.epsilon))
    return Value(name)
