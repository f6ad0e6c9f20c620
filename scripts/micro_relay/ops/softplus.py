"""nn.softplus: ONNX Softplus, log(1 + exp(x)). float32 only (no TFLite builtin).

Computed without overflow as x + log1p(exp(-x)) for x > 0 and log1p(exp(x)) otherwise, each libm call in
float32 (log1pf, expf).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ._unary import UnaryMathOp, libm


@register
class Softplus(UnaryMathOp):
    name = "nn.softplus"

    def float_fn(self, p, x):
        positive = x + libm(np.log1p, libm(np.exp, -x))
        return np.where(x > 0, positive, libm(np.log1p, libm(np.exp, x)))
