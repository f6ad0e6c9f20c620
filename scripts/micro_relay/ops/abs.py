"""abs: TFLite ABS, ONNX Abs.

int8/int16 (M/elementwise.cc AbsEvalQuantized): v = |q - in_zp|; out = clamp(v + out_zp) when the float32
scales are equal, else clamp(MBQM32(v, M, s) + out_zp) with M, s = QuantizeMultiplier(in_s / out_s).
The ratio is in double: TFLite Micro's source says float(in_s / out_s), the build we test against uses double
(float is off by one on 340 of 60 x 256..65536 inputs tried, double on none).
int16 needs zero points of 0. (TFLite Micro also runs unquantized int16 ABS; our int16 tensors carry scales.)
float32: fabsf.
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32
from ..arith.multiplier import quantize_multiplier
from ..ir.registry import op_where, register
from ..ir.types import DType
from ._common import ROUNDING, fail
from ._unary import INT8_INPUTS, UnaryMathOp


def abs_rescale(graph, node, q_in, q_out) -> dict:
    rescale = q_in.scale != q_out.scale
    mult, shift = quantize_multiplier(q_in.scale / q_out.scale, where=op_where(graph, node)) if rescale else (0, 0)
    return {"rescale": int(rescale), "mult": mult, "shift": shift, "in_zp": q_in.zero_point,
            "out_zp": q_out.zero_point}


def abs_values(p: dict, q: np.ndarray) -> np.ndarray:
    v = np.abs(q.astype(np.int64) - p["in_zp"])
    return (mbqm32(v, p["mult"], p["shift"]) if p["rescale"] else v) + p["out_zp"]


@register
class Abs(UnaryMathOp):
    name = "abs"
    attrs = {"rounding": ROUNDING}  # "single": a QDQ model's op, one rounding (ops/_unary.py)
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)

    def int8_values(self, graph, node, q_in, q_out):
        return abs_values(abs_rescale(graph, node, q_in, q_out), INT8_INPUTS)

    def prepare_int16(self, graph, node, q_in, q_out):
        if (q_in.zero_point, q_out.zero_point) != (0, 0):
            fail(graph, node, f"int16 abs needs zero points of 0, got {q_in.zero_point} and {q_out.zero_point}")
        return abs_rescale(graph, node, q_in, q_out)

    def reference_int16(self, p, x):
        return np.clip(abs_values(p, x), -32768, 32767)

    def float_fn(self, p, x):
        return np.abs(x)
