"""subtract: TFLite SUB, out = act(a - b) with numpy broadcasting.

Integer semantics exactly as ADD (TFLM_ARITHMETIC.md section 3, M/sub_common.cc, R/sub.h), with a' - b'
instead of a' + b':
    out = clamp(RDBPOT(SRDHM(a' - b', Mo), -sho) + zo)
The sheet says SUB's Prepare computes its three ratios in float; the golden outputs of TFLite Micro's
single_op_int16 SUB models, and the TFLite Micro we test against, match the ratios in double (float gives
off-by-one outputs on sub0, sub1 and sub3), so double it is.
float32: min(max(a - b, lo), hi).
"""

from __future__ import annotations

from ..ir.registry import register
from ._elementwise import BinaryOp, addsub_fn, addsub_params


@register
class Subtract(BinaryOp):
    name = "subtract"

    def float_fn(self, a, b):
        return a - b

    def quant_params(self, graph, node, qa, qb, qo, dtype):
        return addsub_params(graph, node, qa, qb, qo, dtype)

    def quant_fn(self, p, a, b):
        return addsub_fn(p, a, b, -1)
