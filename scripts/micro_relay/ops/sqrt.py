"""sqrt: TFLite SQRT, ONNX Sqrt. float32 only (TFLite Micro's SQRT): sqrtf, correctly rounded everywhere."""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ._unary import UnaryMathOp


@register
class Sqrt(UnaryMathOp):
    name = "sqrt"

    def float_fn(self, p, x):
        return np.sqrt(x)
