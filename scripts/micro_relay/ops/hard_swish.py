"""nn.hard_swish: TFLite HARD_SWISH, x * relu6(x + 3) / 6. float32 and int8.

float32 (R/hard_swish.h): x * min(6, max(0, x + 3)) / 6 in float32, std::max/min's NaN rule (a NaN sum is 0).
int8 (M/hard_swish_common.cc, R/hard_swish.h), in int16 fixed point (_int16_fixed.py), with
    hires = in_s / 128; (Mo, so) = QuantizeMultiplier(double(float(hires / out_s))), so <= 0 required;
    (Mr, sr) = QuantizeMultiplier(double(float(hires / (3 / 32768)))); both Q31 multipliers rounded to Q15
    (DownScaleInt32ToInt16Multiplier: (M + 2^15) >> 16, 32767 near the top).
Per input: v = (q - in_zp) * 128; pre = SRDHM16(v, Mo16); r = v, then sr > 0: r = satshl(r, sr - 1),
SRDHM16(r, Mr16), satshl(r, 1); sr < 0: SRDHM16 then RDBPOT16(r, -sr); r = (r + 2^15) >> 1;
out = clamp(wrap16(RDBPOT16(SDHM16(r, pre), -so) + out_zp)).
"""

from __future__ import annotations

import numpy as np

from ..arith.multiplier import f32, quantize_multiplier
from ..ir.registry import op_where, register
from ..ir.types import DType
from ._common import ROUNDING, fail
from ._int16_fixed import rdbpot16, satshl16, sdhm16, srdhm16, wrap16
from ._unary import INT8_INPUTS, UnaryMathOp


def q15(multiplier: int) -> int:
    """DownScaleInt32ToInt16Multiplier."""
    return 32767 if multiplier >= (1 << 31) - 1 - (1 << 15) else (multiplier + (1 << 15)) >> 16


@register
class HardSwish(UnaryMathOp):
    name = "nn.hard_swish"
    attrs = {"rounding": ROUNDING}  # "single": a QDQ model's op, one rounding (ops/_unary.py)
    dtypes = (DType.INT8, DType.FLOAT32)

    def int8_values(self, graph, node, q_in, q_out):
        where = op_where(graph, node)
        hires = f32(q_in.scale / 128.0)
        out_m, out_s = quantize_multiplier(f32(hires / f32(q_out.scale)), where=where)
        relu_m, relu_s = quantize_multiplier(f32(hires / f32(3.0 / 32768.0)), where=where)
        if out_s > 0:
            fail(graph, node, f"int8 hard_swish needs an output scale above {q_in.scale} / 128 (TFLite Micro "
                              f"requires a non-positive output exponent), got {q_out.scale}")
        v = wrap16((INT8_INPUTS - q_in.zero_point) * 128)
        pre = srdhm16(v, q15(out_m))
        r = v
        if relu_s > 0:
            r = satshl16(r, relu_s - 1)
        r = srdhm16(r, q15(relu_m))
        if relu_s > 0:
            r = satshl16(r, 1)
        if relu_s < 0:
            r = rdbpot16(r, -relu_s)
        r = (r + (1 << 15)) >> 1
        return wrap16(rdbpot16(sdhm16(r, pre), -out_s) + q_out.zero_point)

    def float_fn(self, p, x):
        t = x + np.float32(3)
        t = np.where(np.float32(0) < t, t, np.float32(0))
        t = np.where(t < np.float32(6), t, np.float32(6))
        return x * t / np.float32(6)
