"""floor_divide: TFLite FLOOR_DIV, out = floor(a / b) with numpy broadcasting; float32 and int32.

float32 (R/floor_div.h): float(floor(double(a) / double(b))). TFLite Micro stops with an error when any
divisor is 0; the kernel then gives IEEE's inf or NaN. int32 (TFLite's own FLOOR_DIV; TFLite Micro has
float32 only): the quotient rounded toward minus infinity, computed in int64 so that INT32_MIN / -1 wraps to
INT32_MIN as numpy's floor_divide does, and a divisor of 0 gives 0, also as numpy does.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ..ir.types import DType
from ._binary import BroadcastOp


@register
class FloorDivide(BroadcastOp):
    name = "floor_divide"
    dtypes = (DType.INT32, DType.FLOAT32)

    def compute(self, p, a, b):
        if p["kind"] == "f32":
            return np.floor(a.astype(np.float64) / b.astype(np.float64)).astype(np.float32)
        return np.floor_divide(a.astype(np.int32), b.astype(np.int32))
