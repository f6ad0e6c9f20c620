"""logical_or: TFLite LOGICAL_OR, out = a || b on bool tensors, with numpy broadcasting."""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ..ir.types import DType
from ._binary import BOOLS, BroadcastOp


@register
class LogicalOr(BroadcastOp):
    name = "logical_or"
    dtypes = BOOLS

    def out_dtype(self, dtype):
        return DType.BOOL

    def compute(self, p, a, b):
        return np.logical_or(a, b)
