"""ceil: TFLite CEIL, ONNX Ceil. float32 only (TFLite Micro's CEIL): ceilf."""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ._unary import UnaryMathOp


@register
class Ceil(UnaryMathOp):
    name = "ceil"

    def float_fn(self, p, x):
        return np.ceil(x)
