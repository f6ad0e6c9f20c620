"""logical_and: TFLite LOGICAL_AND, out = a && b on bool tensors, with numpy broadcasting."""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ..ir.types import DType
from ._binary import BOOLS, BroadcastOp


@register
class LogicalAnd(BroadcastOp):
    name = "logical_and"
    dtypes = BOOLS

    def out_dtype(self, dtype):
        return DType.BOOL

    def compute(self, p, a, b):
        return np.logical_and(a, b)
