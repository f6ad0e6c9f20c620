"""exp: TFLite EXP, ONNX Exp. float32 only (TFLite Micro's EXP): expf."""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ._unary import UnaryMathOp, libm


@register
class Exp(UnaryMathOp):
    name = "exp"

    def float_fn(self, p, x):
        return libm(np.exp, x)
