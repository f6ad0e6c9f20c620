"""greater: TFLite GREATER, out = a > b as a bool, with numpy broadcasting;
int8 (rescaled, see _compare.py), int32 and float32."""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ._compare import CompareOp


@register
class Greater(CompareOp):
    name = "greater"

    def compare(self, a, b):
        return np.greater(a, b)
