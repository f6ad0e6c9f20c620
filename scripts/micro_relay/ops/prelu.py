"""nn.prelu: TFLite PRELU, out = x >= 0 ? x : alpha * x, alpha a tensor broadcast against x.

int8 (M/prelu_common.cc CalculatePreluParams, R/prelu.h), both ratios in double through QuantizeMultiplier:
    M1, s1 from in_s / out_s;  M2, s2 from in_s * alpha_s / out_s
    x = q - in_zp;  x >= 0: MBQM32(x, M1, s1);  else MBQM32(x * (a - alpha_zp), M2, s2);  + out_zp, clamp
x * (a - alpha_zp) is at most 255^2, so it fits int32. int16 takes an int8 alpha (TFLite Micro requires
it) and the same arithmetic, clamped to int16; |x * (a - alpha_zp)| < 2^24. float32: x >= 0 ? x : x * alpha.
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32
from ..arith.multiplier import quantize_multiplier
from ..ir.registry import op_where, register
from ..ir.types import DType
from ._binary import BroadcastOp, input_dtype, positive_scales
from ._common import fail, out_type, require_quant, types


@register
class Prelu(BroadcastOp):
    name = "nn.prelu"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)

    def input_dtype(self, graph, node):
        x, alpha = types(graph, node)
        if x.dtype == DType.INT16:
            if alpha.dtype != DType.INT8:
                fail(graph, node, f"int16 prelu needs an int8 alpha (as TFLite Micro), got {alpha.dtype.value}")
            require_quant(graph, node, x, "input 0")
            require_quant(graph, node, alpha, "input 1")
            return DType.INT16
        return input_dtype(graph, node, (DType.INT8, DType.FLOAT32))

    def quant_params(self, graph, node, dtype):
        if dtype.is_float:
            return {}
        x, alpha = types(graph, node)
        out = out_type(graph, node)
        positive_scales(graph, node, x.quant, alpha.quant, out.quant)
        m1, s1 = quantize_multiplier(x.quant.scale / out.quant.scale, op_where(graph, node))
        m2, s2 = quantize_multiplier(x.quant.scale * alpha.quant.scale / out.quant.scale, op_where(graph, node))
        return {"in_offset": -x.quant.zero_point, "alpha_offset": -alpha.quant.zero_point,
                "out_offset": out.quant.zero_point, "mult1": m1, "shift1": s1, "mult2": m2, "shift2": s2}

    def compute(self, p, x, alpha):
        if p["kind"] == "f32":
            x, alpha = x.astype(np.float32), alpha.astype(np.float32)
            return np.where(x >= 0, x, x * alpha)
        v = x.astype(np.int64) + p["in_offset"]
        negative = mbqm32(v * (alpha.astype(np.int64) + p["alpha_offset"]), p["mult2"], p["shift2"])
        raw = np.where(v >= 0, mbqm32(v, p["mult1"], p["shift1"]), negative) + p["out_offset"]
        limit = DType.INT16 if p["kind"] == "s16" else DType.INT8
        return np.clip(raw, limit.min, limit.max)
