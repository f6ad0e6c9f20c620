"""not_equal: TFLite NOT_EQUAL, out = a != b as a bool, with numpy broadcasting;
bool, int8 (rescaled, see _compare.py), int32 and float32."""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ..ir.types import DType
from ._compare import CompareOp


@register
class NotEqual(CompareOp):
    name = "not_equal"
    dtypes = (DType.BOOL, DType.INT8, DType.INT32, DType.FLOAT32)

    def compare(self, a, b):
        return np.not_equal(a, b)
