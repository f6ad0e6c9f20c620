"""divide: TFLite DIV, out = act(a / b) with numpy broadcasting; float32, int32 and int8.

float32 (R/div.h): min(max(a / b, lo), hi), IEEE division (b = 0 gives inf or NaN).
int32 (unquantized, as TFLite Micro requires): C's truncating a / b, then the activation's integer clamp
(CalculateActivationRange: relu [0, max], relu6 [0, 6], relu_n1_to_1 [-1, 1]). A zero divisor, which crashes
TFLite Micro, gives 0, and INT32_MIN / -1 wraps to INT32_MIN.
int8 (M/div.cc CalculateOpDataDiv, R/div.h DivElementwise), with M, s = QuantizeMultiplier of
double(float(s1 / (s2 * so))) (the ratio is formed in float):
    x = q1 - z1; y = q2 - z2; if y < 0: x, y = -x, -y
    inv, r = GetReciprocal(y, 31)                  1/y as Q0.31 and the bits of y above one
    h = CountLeadingSignBits(x)                    31 for x = 0 (GCC's build)
    out = clamp(RDBPOT(SRDHM(SRDHM(x << h, inv), M), -(s - r - h)) + zo)
A divisor equal to its zero point (y = 0) is outside TFLite Micro's contract (a DCHECK); the kernels then
give the output zero point. The final shift must stay a RoundingDivideByPOT of 0..31 bits for every x and y,
which holds when 7 <= s <= 23 (r is 0..7 and h 23..31 for int8): Prepare refuses other output scales, where
TFLite Micro's shifts leave C's defined range.
"""

from __future__ import annotations

import numpy as np

from ..arith import gemmlowp
from ..arith.fixedpoint import rdbpot, srdhm, wrap32
from ..arith.multiplier import f32, quantize_multiplier
from ..ir.registry import op_where, register
from ..ir.types import DType
from ._binary import BroadcastOp, positive_scales
from ._common import ACTIVATION, apply_clamp, clamp_range, fail, out_type, types

SHIFT_RANGE = (7, 23)
INT32_CLAMPS = {"relu": (0, DType.INT32.max), "relu6": (0, 6), "relu_n1_to_1": (-1, 1)}


def leading_sign_bits(x: np.ndarray) -> np.ndarray:
    """CountLeadingSignBits of int32 values (GCC's __builtin_clrsb; 31 for 0)."""
    x = np.asarray(x, dtype=np.int64)
    magnitude = np.where(x < 0, ~x, x)  # clrsb(x) = clz(x ^ (x >> 31)) - 1
    return gemmlowp.count_leading_zeros(magnitude) - 1


@register
class Divide(BroadcastOp):
    name = "divide"
    attrs = {"activation": ACTIVATION}
    dtypes = (DType.INT8, DType.INT32, DType.FLOAT32)

    def quant_params(self, graph, node, dtype):
        lo, hi = clamp_range(graph, node)
        params = {"act_min": lo, "act_max": hi}
        if dtype.is_float:
            return params
        a, b = types(graph, node)
        if dtype == DType.INT32:
            if a.quant is not None or b.quant is not None:
                fail(graph, node, "int32 divide runs unquantized tensors only (as TFLite Micro)")
            low, high = INT32_CLAMPS.get(node.attrs.get("activation", "none"), (DType.INT32.min, DType.INT32.max))
            return {"act_min": low, "act_max": high}
        out = out_type(graph, node)
        positive_scales(graph, node, a.quant, b.quant, out.quant)
        mult, shift = quantize_multiplier(f32(a.quant.scale / f32(b.quant.scale * out.quant.scale)),
                                          op_where(graph, node))
        if not SHIFT_RANGE[0] <= shift <= SHIFT_RANGE[1]:
            fail(graph, node, f"int8 divide needs s1 / (s2 * so) in [2^{SHIFT_RANGE[0] - 1}, 2^{SHIFT_RANGE[1]}) "
                              f"(TFLite Micro's shifts stay defined there), got {a.quant.scale} / ({b.quant.scale} * "
                              f"{out.quant.scale})")
        params.update(a_offset=-a.quant.zero_point, b_offset=-b.quant.zero_point, out_offset=out.quant.zero_point,
                      mult=mult, shift=shift)
        return params

    def compute(self, p, a, b):
        if p["kind"] == "f32":
            return apply_clamp(a.astype(np.float32) / b.astype(np.float32), p["act_min"], p["act_max"], np.float32)
        if p["kind"] == "s32":
            a, b = a.astype(np.int64), b.astype(np.int64)
            quotient = np.sign(a) * np.sign(b) * (np.abs(a) // np.maximum(np.abs(b), 1))
            return np.clip(wrap32(np.where(b == 0, 0, quotient)), p["act_min"], p["act_max"])
        x = a.astype(np.int64) + p["a_offset"]
        y = b.astype(np.int64) + p["b_offset"]
        x = np.where(y < 0, -x, x)
        y = np.abs(y)
        inv, bits = gemmlowp.reciprocal(np.maximum(y, 1), 31)
        headroom = leading_sign_bits(x)
        quotient = srdhm(wrap32(x << headroom), inv)
        raw = rdbpot(srdhm(quotient, p["mult"]), -(p["shift"] - bits - headroom)) + p["out_offset"]
        raw = np.where(y == 0, p["out_offset"], raw)
        return np.clip(raw, p["act_min"], p["act_max"])
