"""log: TFLite LOG, ONNX Log. float32 only (TFLite Micro's LOG): logf (NaN below 0, -inf at 0)."""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ._unary import UnaryMathOp, libm


@register
class Log(UnaryMathOp):
    name = "log"

    def float_fn(self, p, x):
        return libm(np.log, x)
