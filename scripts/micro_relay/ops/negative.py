"""negative: TFLite NEG, ONNX Neg. float32 only: TFLite Micro's NEG has no integer kernel."""

from __future__ import annotations

from ..ir.registry import register
from ._unary import UnaryMathOp


@register
class Negative(UnaryMathOp):
    name = "negative"

    def float_fn(self, p, x):
        return -x
