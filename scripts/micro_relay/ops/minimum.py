"""minimum: TFLite MINIMUM, out = a < b ? a : b with numpy broadcasting.

Raw stored values, quantization ignored, exactly as maximum (see maximum.py): TFLite Micro has no Prepare.
float32: a NaN in b is returned, a NaN in a is not.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ..ir.types import DType
from ._binary import BroadcastOp


@register
class Minimum(BroadcastOp):
    name = "minimum"
    dtypes = (DType.INT8, DType.INT16, DType.INT32, DType.FLOAT32)

    def compute(self, p, a, b):
        return np.where(a < b, a, b)
