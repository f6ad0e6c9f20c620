"""multiply: TFLite MUL, out = act(a * b) with numpy broadcasting.

Integer semantics (TFLM_ARITHMETIC.md section 3, M/mul_common.cc, RI/mul.h):
    out = clamp(MBQM32((q1 - z1) * (q2 - z2), M, s) + zo)    M, s = QuantizeMultiplier(s1 * s2 / so), double
The product fits int32: int8 offsets give at most 255^2, and int16 needs every zero point to be 0 (TFLite
Micro rejects anything else), giving at most 2^30. float32: min(max(a * b, lo), hi).
"""

from __future__ import annotations

from ..arith.fixedpoint import mbqm32, mbqm_single
from ..arith.multiplier import quantize_multiplier
from ..ir.registry import op_where, register
from ..ir.types import DType
from ._common import fail, single_rounding
from ._elementwise import BinaryOp


@register
class Multiply(BinaryOp):
    name = "multiply"

    def float_fn(self, a, b):
        return a * b

    def quant_params(self, graph, node, qa, qb, qo, dtype):
        if dtype == DType.INT16 and (qa.zero_point, qb.zero_point, qo.zero_point) != (0, 0, 0):
            fail(graph, node, "int16 multiply needs zero points of 0 on both inputs and the output, got "
                              f"{qa.zero_point}, {qb.zero_point}, {qo.zero_point}")
        mult, shift = quantize_multiplier(qa.scale * qb.scale / qo.scale, where=op_where(graph, node))
        return {"a_offset": -qa.zero_point, "b_offset": -qb.zero_point, "out_offset": qo.zero_point,
                "mult": mult, "shift": shift, "single": single_rounding(graph, node, dtype, [shift])}

    def quant_fn(self, p, a, b):
        requantize = mbqm_single if p["single"] else mbqm32
        return requantize((a + p["a_offset"]) * (b + p["b_offset"]), p["mult"], p["shift"]) + p["out_offset"]
