"""The comparisons (equal, not_equal, less, less_equal, greater, greater_equal): a bool per element.

TFLite Micro (M/comparisons.cc, R/comparisons.h): float32 and int32 (and bool for equal/not_equal) compare the
raw values. int8 compares after rescaling both sides to a common fixed point, each with its own scale:
    x' = MBQM32((q - zp) << 8, M, s)        M, s = QuantizeMultiplierSmallerThanOneExp(double(scale))
so values equal in real terms compare equal even when the two inputs are quantized differently, up to the
rounding of that rescale. TFLite Micro CHECKs scale < 1 there; Micro Relay refuses larger scales. int16 is
refused: TFLite Micro lists it for GREATER only and then compares with multipliers it never prepared.
"""

from __future__ import annotations

import numpy as np

from ..ir.types import DType
from ._binary import BroadcastOp, rescale_params, rescaled

LEFT_SHIFT = 8  # kLeftShift of ComparisonsPrepare


class CompareOp(BroadcastOp):
    dtypes = (DType.INT8, DType.INT32, DType.FLOAT32)

    def out_dtype(self, dtype):
        return DType.BOOL

    def quant_params(self, graph, node, dtype):
        return rescale_params(graph, node, LEFT_SHIFT) if dtype == DType.INT8 else {}

    def compute(self, p, a, b):
        if p["kind"] == "s8":
            a, b = rescaled(p, a, b)
        return self.compare(a, b)

    def compare(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError
