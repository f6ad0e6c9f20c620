"""round: TFLite ROUND, ONNX Round: halves to even. float32 only (TFLite Micro's ROUND).

TFLite's RoundToNearest (R/round.h): f = floor(x), d = x - f; f when d < 0.5 or (d == 0.5 and f is even),
else f + 1 (so NaN stays NaN and infinities stay themselves).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ._unary import UnaryMathOp


@register
class Round(UnaryMathOp):
    name = "round"

    def float_fn(self, p, x):
        f = np.floor(x)
        d = x - f
        return np.where((d < 0.5) | ((d == 0.5) & (np.fmod(f, 2) == 0)), f, f + np.float32(1))
