"""nn.gelu: ONNX Gelu / TFLite GELU, float32 only (TFLite Micro has no GELU kernel).

approximate = False: 0.5 x (1 + erf(x / sqrt(2)));
approximate = True:  0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))),
each step in float32, as crt/src/mr_unary_f32.c computes it.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, register
from ._unary import UnaryMathOp, libm
from .erf import erf

HALF = np.float32(0.5)
ONE = np.float32(1)
SQRT1_2 = np.float32(0.70710678118654752440)
SQRT_2_OVER_PI = np.float32(0.79788456080286535588)
CUBIC = np.float32(0.044715)


@register
class Gelu(UnaryMathOp):
    name = "nn.gelu"
    attrs = {"approximate": Attr(bool, False)}

    def float_params(self, graph, node):
        return {"alpha": 0.0, "beta": 0.0, "approximate": bool(node.attrs.get("approximate", False))}

    def float_fn(self, p, x):
        if p["approximate"]:
            inner = SQRT_2_OVER_PI * (x + CUBIC * x * x * x)
            return HALF * x * (ONE + libm(np.tanh, inner))
        return HALF * x * (ONE + erf(x * SQRT1_2))
