"""square: TFLite SQUARE. float32 only (TFLite Micro's SQUARE): x * x."""

from __future__ import annotations

from ..ir.registry import register
from ._unary import UnaryMathOp


@register
class Square(UnaryMathOp):
    name = "square"

    def float_fn(self, p, x):
        return x * x
