"""erf: ONNX Erf (no TFLite builtin). float32: erff."""

from __future__ import annotations

import math

import numpy as np

from ..ir.registry import register
from ._unary import UnaryMathOp, libm

ERF = np.frompyfunc(math.erf, 1, 1)


def erf(x: np.ndarray) -> np.ndarray:
    """erff as double erf rounded once to float32."""
    return libm(lambda v: ERF(v).astype(np.float64), x)


@register
class Erf(UnaryMathOp):
    name = "erf"

    def float_fn(self, p, x):
        return erf(x)
