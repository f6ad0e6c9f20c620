"""nn.elu: TFLite ELU, ONNX Elu: x < 0 ? alpha * (exp(x) - 1) : x. float32 and int8 (alpha 1 only).

float32 (R/elu.h): expm1f(x) for x < 0 (times alpha, 1 for TFLite). int8 (M/elu.cc PopulateLookupTable):
TFLite Micro's own 256-entry table, built in float32:
    d = in_s * (q - in_zp); t = d < 0 ? expf(d) - 1 : d; out = clamp(int(round(t * (1 / out_s)) + out_zp))
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, register
from ..ir.types import DType
from ._common import ROUNDING, fail
from ._elementwise import round_half_away_array
from ._unary import INT8_INPUTS, UnaryMathOp, f32_ops, libm


@register
class Elu(UnaryMathOp):
    name = "nn.elu"
    attrs = {"alpha": Attr(float, 1.0), "rounding": ROUNDING}  # "single": a QDQ model's ELU (ops/_unary.py)
    dtypes = (DType.INT8, DType.FLOAT32)

    def float_params(self, graph, node):
        return {"alpha": float(np.float32(node.attrs.get("alpha", 1.0))), "beta": 0.0}

    def int8_values(self, graph, node, q_in, q_out):
        if float(node.attrs.get("alpha", 1.0)) != 1.0:
            fail(graph, node, f"int8 elu supports alpha 1 (TFLite's ELU), got {node.attrs['alpha']}")
        with f32_ops():
            d = np.float32(q_in.scale) * (INT8_INPUTS - q_in.zero_point).astype(np.float32)
            t = np.where(d < 0, libm(np.exp, d) - np.float32(1), d)
            scaled = t * (np.float32(1) / np.float32(q_out.scale))
        if not np.all(np.abs(scaled) < 2.0 ** 31):
            fail(graph, node, f"int8 elu output scale {q_out.scale} is too small for input scale {q_in.scale}: "
                              f"TFLite Micro's table would overflow int32")
        return round_half_away_array(scaled).astype(np.int64) + q_out.zero_point

    def float_fn(self, p, x):
        negative = np.float32(p["alpha"]) * libm(np.expm1, x)
        return np.where(x < 0, negative, x)
