"""rsqrt: TFLite RSQRT, 1 / sqrt(x). float32 (1.0f / sqrtf(x)) and int8; TFLite Micro's Prepare refuses int16.

int8 (M/elementwise.cc RsqrtEvalQuantized): v = q - in_zp; v < 0 fails at Invoke (the kernel returns
MR_ERR_DOMAIN); v = 0 gives 127; otherwise, with (Mi, si) = GetInvSqrtQuantizedMultiplierExp(v) (I/common.h,
a gemmlowp Newton iteration for 1/sqrt, below) and (M, s) = QuantizeMultiplier(1 / double(sqrtf(in_s) * out_s)),
    out = clamp(MBQM32(MBQM32(1, Mi, si + 20), M, s - 20) + out_zp)
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32, rdbpot, satshl, srdhm, wrap32
from ..arith.gemmlowp import count_leading_zeros
from ..arith.multiplier import f32, quantize_multiplier
from ..ir.registry import op_where, register
from ..ir.types import DType
from ._common import fail
from ._unary import INT8_INPUTS, UnaryMathOp

HALF_THREE_Q3 = (1 << 28) + (1 << 27)  # 1.5 with 3 integer bits
HALF_SQRT2_Q0 = 1518500250  # sqrt(2) / 2 in Q0.31


def inv_sqrt_multiplier(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GetInvSqrtQuantizedMultiplierExp(v, kReverseShift = -1) for 1 < v < 2^29: (multiplier, left shift)."""
    v = np.asarray(v, dtype=np.int64)
    pairs = (count_leading_zeros(v) - 1) // 2 - 1
    shift = 11 - pairs
    v = v << (2 * pairs)
    half_input = rdbpot(v >> 1, 1)
    x = np.full_like(v, 1 << 28)  # One() with 3 integer bits
    for _ in range(5):
        x3 = satshl(srdhm(srdhm(x, x), x), 6)  # Rescale<3> of a 9-integer-bit product
        x = satshl(wrap32(srdhm(HALF_THREE_Q3, x) - srdhm(half_input, x3)), 3)
    x = srdhm(x, HALF_SQRT2_Q0)
    x = np.where(shift < 0, wrap32(x << np.maximum(-shift, 0)), x)
    return x, -np.maximum(shift, 0)


@register
class Rsqrt(UnaryMathOp):
    name = "rsqrt"
    dtypes = (DType.INT8, DType.FLOAT32)

    def prepare_int8(self, graph, node, q_in, q_out):
        params = super().prepare_int8(graph, node, q_in, q_out)
        params["valid_min"] = max(q_in.zero_point, -128)
        return params

    def int8_values(self, graph, node, q_in, q_out):
        scale = 1.0 / f32(float(np.sqrt(np.float32(q_in.scale))) * np.float32(q_out.scale))
        mult, shift = quantize_multiplier(scale, where=op_where(graph, node))
        if not -31 <= shift - 20 <= 10:
            fail(graph, node, f"int8 rsqrt rescale 1/(sqrt({q_in.scale}) * {q_out.scale}) = {scale:.6g} is out of "
                              f"the range TFLite Micro computes without overflow (shift {shift - 20}, allowed -31..10)")
        v = np.maximum(INT8_INPUTS - q_in.zero_point, 1)
        inv, inv_shift = inv_sqrt_multiplier(np.maximum(v, 2))
        inv = np.where(v <= 1, (1 << 31) - 1, inv)
        inv_shift = np.where(v <= 1, 0, inv_shift)
        out = mbqm32(mbqm32(np.ones_like(v), inv, inv_shift + 20), mult, shift - 20) + q_out.zero_point
        return np.where(INT8_INPUTS == q_in.zero_point, 127, out)

    def float_fn(self, p, x):
        return np.float32(1) / np.sqrt(x)
