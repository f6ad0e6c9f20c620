"""maximum: TFLite MAXIMUM, out = a > b ? a : b with numpy broadcasting.

TFLite Micro (M/maximum_minimum.cc, R/maximum_minimum.h) has no Prepare: it compares the raw stored values
of int8, int16 and int32 tensors without looking at their quantization, and the output takes the chosen raw
value. Micro Relay does the same, so quantized inputs with different scales give what TFLite Micro gives.
float32 keeps the expression's NaN behaviour: a NaN in b is returned, a NaN in a is not.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ..ir.types import DType
from ._binary import BroadcastOp


@register
class Maximum(BroadcastOp):
    name = "maximum"
    dtypes = (DType.INT8, DType.INT16, DType.INT32, DType.FLOAT32)

    def compute(self, p, a, b):
        return np.where(a > b, a, b)
