"""add: TFLite ADD, out = act(a + b) with numpy broadcasting.

Integer semantics (TFLM_ARITHMETIC.md section 3, M/add_common.cc, RI/add.h; int16 takes R/add.h's general
path, pot_scale false): both inputs are brought to a common scale 2*max(s1, s2) after a left shift ls (20
for int8, 15 for int16, so int16's 65535 << 15 still fits int32):
    a' = RDBPOT(SRDHM((q1 - z1) << ls, M1), -sh1)        M1, sh1 from s1 / (2 max(s1, s2))
    b' = RDBPOT(SRDHM((q2 - z2) << ls, M2), -sh2)        M2, sh2 from s2 / (2 max(s1, s2))
    out = clamp(RDBPOT(SRDHM(a' + b', Mo), -sho) + zo)   Mo, sho from 2 max(s1, s2) / (2^ls so)
with the three ratios in double and each through QuantizeMultiplierSmallerThanOneExp (so TFLite Micro
rejects an output rescale >= 1). float32: min(max(a + b, lo), hi).
"""

from __future__ import annotations

from ..ir.registry import register
from ._elementwise import BinaryOp, addsub_fn, addsub_params


@register
class Add(BinaryOp):
    name = "add"

    def float_fn(self, a, b):
        return a + b

    def quant_params(self, graph, node, qa, qb, qo, dtype):
        return addsub_params(graph, node, qa, qb, qo, dtype)

    def quant_fn(self, p, a, b):
        return addsub_fn(p, a, b, +1)
