"""Reductions: MEAN."""

from __future__ import annotations

import numpy as np
import tflite
from tflite.BuiltinOperator import BuiltinOperator as B

from .context import converts, make_node


@converts(B.MEAN)
def mean(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    o = ctx.options(op, tflite.ReducerOptions)
    rank = len(ctx.shape(inputs[0]))
    axes = sorted({ctx.axis(int(a), rank, "MEAN axis") for a in np.ravel(ctx.constant(inputs[1], "MEAN axis"))})
    return [make_node(ctx, "mean", inputs[:1], outputs, axis=tuple(axes), keepdims=bool(o.KeepDims()) if o is not None else False)]
