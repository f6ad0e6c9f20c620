"""floor: TFLite FLOOR, ONNX Floor. float32 only (TFLite Micro's FLOOR): floorf."""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ._unary import UnaryMathOp


@register
class Floor(UnaryMathOp):
    name = "floor"

    def float_fn(self, p, x):
        return np.floor(x)
