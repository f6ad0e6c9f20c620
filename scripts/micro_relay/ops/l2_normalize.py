"""nn.l2_normalize: TFLite L2_NORMALIZATION, x / ||x|| along the last axis.

int8 (RI/l2normalization.h, I/common.h GetInvSqrtQuantizedMultiplierExp), per row:
    acc = sum (q - in_zp)^2 (int32);  (M, s) = inv_sqrt(acc);  out = clamp(MBQM32(q - in_zp, M, s + 7))
inv_sqrt is gemmlowp fixed point, computed at run time since it depends on the data: acc <= 1 gives
(INT32_MAX, 0); otherwise acc is divided by 4 while >= 2^29 (shift = 11 + the divisions), normalized by
pairs of bits into [2^27, 2^29), five Newton steps x = 1.5x - (acc/2) x^3 in Q3 from x = 1, times sqrt(2)/2;
a negative shift moves into the multiplier. The output is in scale 1/128, zero point 0, whatever the output
tensor says (TFLite Micro checks neither; nor do we). depth is capped so acc cannot overflow int32.
float32 (R/l2normalization.h): sq = 0.f + x*x in order; out = x / max(sqrtf(sq), 1e-6f).
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import INT32_MAX, mbqm32, rdbpot, satshl, srdhm, wrap32
from ..arith.gemmlowp import count_leading_zeros
from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, kernel_suffix, out_type, require_quant, types

EPSILON = 1e-6  # TFLite Micro's hard-coded float epsilon
MAX_INT8_DEPTH = INT32_MAX // (255 * 255)  # sum of squared int8 differences stays in int32


def inv_sqrt(acc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GetInvSqrtQuantizedMultiplierExp(acc, reverse_shift=-1): (multiplier, shift, left positive)."""
    acc = np.asarray(acc, np.int64)
    value, shift = acc.copy(), np.full(acc.shape, 11, np.int64)
    for _ in range(16):
        big = value >= (1 << 29)
        value, shift = np.where(big, value // 4, value), shift + big
    pairs = (count_leading_zeros(np.maximum(value, 1)) - 1) // 2 - 1
    shift, value = shift - pairs, value << np.maximum(2 * pairs, 0)
    fixed = value >> 1
    half = rdbpot(fixed, 1)
    x = np.full(acc.shape, 1 << 28, np.int64)
    for _ in range(5):
        x3 = satshl(srdhm(srdhm(x, x), x), 6)
        x = satshl(wrap32(srdhm((1 << 28) + (1 << 27), x) - srdhm(half, x3)), 3)
    x = srdhm(x, 1518500250)
    x = np.where(shift < 0, wrap32(x << np.maximum(-shift, 0)), x)
    shift = np.maximum(shift, 0)
    small = acc <= 1
    return np.where(small, INT32_MAX, x), np.where(small, 0, -shift)


@register
class L2Normalize(OpDef):
    name = "nn.l2_normalize"
    attrs = {"axis": Attr(int, -1)}
    dtypes = (DType.INT8, DType.FLOAT32)

    def infer(self, graph, node):
        data = types(graph, node)[0]
        if data.rank < 1 or int(node.attrs.get("axis", -1)) not in (-1, data.rank - 1):
            fail(graph, node, f"nn.l2_normalize runs along the last axis only, got axis {node.attrs.get('axis')} "
                              f"of {list(data.shape)}")
        return [TensorType(data.shape, data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, out = types(graph, node)[0], out_type(graph, node)
        if data.dtype != out.dtype or data.dtype not in self.dtypes:
            fail(graph, node, f"nn.l2_normalize runs int8 or float32 to the same type, got "
                              f"{data.dtype.value} -> {out.dtype.value}")
        depth = int(data.shape[-1]) if data.shape else 1
        p = {"depth": depth, "outer": data.size // max(depth, 1), "kind": kernel_suffix(data.dtype)}
        if data.size == 0:
            fail(graph, node, f"nn.l2_normalize of an empty tensor {list(data.shape)}")
        if data.dtype.is_float:
            return p
        require_quant(graph, node, data, "input")
        if depth > MAX_INT8_DEPTH:
            fail(graph, node, f"int8 nn.l2_normalize over {depth} values overflows TFLite Micro's int32 sum "
                              f"(at most {MAX_INT8_DEPTH})")
        p["in_zp"] = data.quant.zero_point
        return p

    def reference(self, graph, node, p, inputs):
        x, out = inputs[0], out_type(graph, node)
        rows = x.reshape(p["outer"], p["depth"])
        if x.dtype == np.float32:
            sq = np.zeros(p["outer"], np.float32)
            for j in range(p["depth"]):
                sq = (sq + rows[:, j] * rows[:, j]).astype(np.float32)
            norm = np.maximum(np.sqrt(sq), np.float32(EPSILON)).astype(np.float32)
            return [(rows / norm[:, None]).astype(np.float32).reshape(out.shape)]
        diff = rows.astype(np.int64) - p["in_zp"]
        mult, shift = inv_sqrt((diff * diff).sum(axis=1))
        q = mbqm32(diff, mult[:, None], shift[:, None] + 7)
        return [np.clip(q, -128, 127).astype(np.int8).reshape(out.shape)]

    def macs(self, graph, node):
        return 2 * types(graph, node)[0].size
