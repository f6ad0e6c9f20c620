"""rsqrt: TFLite RSQRT, 1 / sqrt(x). float32 (1.0f / sqrtf(x)), int8 and int16 (M/elementwise.cc).

Integer (RsqrtEvalQuantized): v = q - in_zp; v < 0 fails at Invoke (the kernels return MR_ERR_DOMAIN);
v = 0 gives the type's maximum; otherwise, with (Mi, si) = GetInvSqrtQuantizedMultiplierExp(v) (I/common.h: a
gemmlowp Newton iteration for 1/sqrt, `inv_sqrt_multiplier`) and (M, s) = QuantizeMultiplier(1 / (sqrt(in_s) *
out_s)), out = clamp(MBQM32(MBQM32(1, Mi, si + 20), M, s - 20) + out_zp). int16 needs zero points of 0.
The TFLite Micro we test against computes 1 / (sqrt(in_s) * out_s) in double (in float, it is off by one on
int16 inputs for some scales); so do we.
"""

from __future__ import annotations

import math

import numpy as np

from ..arith.fixedpoint import mbqm32, rdbpot, satshl, srdhm, wrap32
from ..arith.gemmlowp import count_leading_zeros
from ..arith.multiplier import quantize_multiplier
from ..ir.registry import op_where, register
from ..ir.types import DType
from ._common import fail
from ._unary import INT8_INPUTS, UnaryMathOp

HALF_THREE_Q3 = (1 << 28) + (1 << 27)  # 1.5 with 3 integer bits
HALF_SQRT2_Q0 = 1518500250  # sqrt(2) / 2 in Q0.31
ROOM = 20  # TFLite's kShift: the first multiply keeps 20 more bits


def inv_sqrt_multiplier(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GetInvSqrtQuantizedMultiplierExp(v, kReverseShift = -1) for 0 <= v < 2^29: (multiplier, left shift)."""
    v = np.maximum(np.asarray(v, dtype=np.int64), 2)
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


def rsqrt_params(graph, node, q_in, q_out) -> dict:
    scale = 1.0 / (math.sqrt(q_in.scale) * q_out.scale)
    mult, shift = quantize_multiplier(scale, where=op_where(graph, node))
    if not -31 <= shift - ROOM <= 10:
        fail(graph, node, f"{node.op} rescale 1/(sqrt({q_in.scale}) * {q_out.scale}) = {scale:.6g} is outside the "
                          f"range TFLite Micro computes without overflow (shift {shift - ROOM}, allowed -31..10)")
    return {"in_zp": q_in.zero_point, "out_zp": q_out.zero_point, "mult": mult, "shift": shift - ROOM}


def rsqrt_values(p: dict, q: np.ndarray, top: int) -> np.ndarray:
    """The output before the clamp for raw inputs q >= in_zp (top: the type's maximum, for v = 0)."""
    v = np.asarray(q, dtype=np.int64) - p["in_zp"]
    inv, inv_shift = inv_sqrt_multiplier(v)
    one = v <= 1  # GetInvSqrtQuantizedMultiplierExp's special case (0 is treated as 1)
    inv, inv_shift = np.where(one, (1 << 31) - 1, inv), np.where(one, 0, inv_shift)
    out = mbqm32(mbqm32(np.ones_like(v), inv, inv_shift + ROOM), p["mult"], p["shift"]) + p["out_zp"]
    return np.where(v == 0, top, out)


@register
class Rsqrt(UnaryMathOp):
    name = "rsqrt"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)

    def prepare_int8(self, graph, node, q_in, q_out):
        params = super().prepare_int8(graph, node, q_in, q_out)
        params["valid_min"] = q_in.zero_point
        return params

    def int8_values(self, graph, node, q_in, q_out):
        return rsqrt_values(rsqrt_params(graph, node, q_in, q_out), np.maximum(INT8_INPUTS, q_in.zero_point), 127)

    def prepare_int16(self, graph, node, q_in, q_out):
        if (q_in.zero_point, q_out.zero_point) != (0, 0):
            fail(graph, node, f"int16 rsqrt needs zero points of 0, got {q_in.zero_point} and {q_out.zero_point}")
        return rsqrt_params(graph, node, q_in, q_out)

    def reference_int16(self, p, x):
        if np.any(x < 0):
            raise ValueError("int16 rsqrt of a negative value: TFLite Micro fails at Invoke, the kernel returns "
                             "MR_ERR_DOMAIN")
        return np.clip(rsqrt_values(p, x, 32767), -32768, 32767)

    def float_fn(self, p, x):
        return np.float32(1) / np.sqrt(x)
