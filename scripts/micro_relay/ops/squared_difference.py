"""squared_difference: TFLite SQUARED_DIFFERENCE, out = (a - b)^2 with numpy broadcasting; int8 and float32.

float32: d = a - b; d * d. int8 (M/squared_difference.cc), ADD's rescale with a left shift of 7, both
ratios in double through QuantizeMultiplierSmallerThanOneExp, the output one through QuantizeMultiplier:
    a' = RDBPOT(SRDHM((q1 - z1) << 7, M1), -s1)        M1, s1 from s1 / (2 max(s1, s2))
    b' likewise;  d = a' - b'  (|d| < 2^15, so d * d fits int32)
    out = clamp(MBQM32(d * d, Mo, so) + zo)            Mo, so from (2 max(s1, s2))^2 / (2^14 so)
int16 is refused: its left shift of 0 lets d * d overflow int32 in TFLite Micro.
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32, wrap32
from ..arith.multiplier import quantize_multiplier
from ..ir.registry import op_where, register
from ..ir.types import DType
from ._binary import BroadcastOp, positive_scales
from ._common import out_type, types

LEFT_SHIFT = 7


@register
class SquaredDifference(BroadcastOp):
    name = "squared_difference"
    dtypes = (DType.INT8, DType.FLOAT32)

    def quant_params(self, graph, node, dtype):
        if dtype.is_float:
            return {}
        a, b = types(graph, node)
        out = out_type(graph, node)
        positive_scales(graph, node, a.quant, b.quant, out.quant)
        where = op_where(graph, node)
        twice = 2.0 * max(a.quant.scale, b.quant.scale)
        am, ash = quantize_multiplier(a.quant.scale / twice, where)
        bm, bsh = quantize_multiplier(b.quant.scale / twice, where)
        om, osh = quantize_multiplier(twice * twice / ((1 << 2 * LEFT_SHIFT) * out.quant.scale), where)
        return {"a_offset": -a.quant.zero_point, "b_offset": -b.quant.zero_point, "out_offset": out.quant.zero_point,
                "left_shift": LEFT_SHIFT, "a_mult": am, "a_shift": ash, "b_mult": bm, "b_shift": bsh,
                "out_mult": om, "out_shift": osh, "act_min": DType.INT8.min, "act_max": DType.INT8.max}

    def compute(self, p, a, b):
        if p["kind"] == "f32":
            d = (a.astype(np.float32) - b.astype(np.float32)).astype(np.float32)
            return d * d
        ls = p["left_shift"]
        sa = mbqm32((a.astype(np.int64) + p["a_offset"]) << ls, p["a_mult"], p["a_shift"])
        sb = mbqm32((b.astype(np.int64) + p["b_offset"]) << ls, p["b_mult"], p["b_shift"])
        d = sa - sb
        return np.clip(mbqm32(wrap32(d * d), p["out_mult"], p["out_shift"]) + p["out_offset"], -128, 127)
