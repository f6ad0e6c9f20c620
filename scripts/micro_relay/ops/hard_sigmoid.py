"""nn.hard_sigmoid: ONNX HardSigmoid, max(0, min(1, alpha * x + beta)). float32 only (no TFLite builtin)."""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, register
from ._unary import UnaryMathOp


@register
class HardSigmoid(UnaryMathOp):
    name = "nn.hard_sigmoid"
    attrs = {"alpha": Attr(float, 0.2), "beta": Attr(float, 0.5)}

    def float_params(self, graph, node):
        return {"alpha": float(np.float32(node.attrs.get("alpha", 0.2))),
                "beta": float(np.float32(node.attrs.get("beta", 0.5)))}

    def float_fn(self, p, x):
        y = np.float32(p["alpha"]) * x + np.float32(p["beta"])
        lo = np.where(y > 0, y, np.float32(0))
        return np.where(lo < 1, lo, np.float32(1))
