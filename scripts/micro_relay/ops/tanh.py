"""tanh: TFLite TANH.

int8 semantics (TFLM_ARITHMETIC.md section 5, M/tanh.cc, RI/tanh.h): the same input preparation as
LOGISTIC (Q4.27 multiplier and radius), then gemmlowp's fixed-point tanh, whose exp runs on 2x as a Q5
value (ExactMulByPot relabels the integer bits):
    x = q - in_zp;  x <= -radius -> -128;  x >= radius -> 127;  otherwise
    out = clamp(RDBPOT(tanh_Q4(MBQM32(x, M, s)), 24))
The output zero point is assumed to be 0 and the scale 1/128; TFLite Micro checks neither (nor do we).
int16 (RI/tanh.h): the sigmoid table of _logistic16.py read at twice the resolution, as tanh(x) = 2 sigmoid(2x) - 1;
zero points 0, output scale 2^-15.
float32 (R/tanh.h): tanhf (here double tanh rounded once to float32).
int8 with rounding "single" (a QDQ model's tanh): dequantize -> float tanh -> quantize, as a table
(ops/sigmoid.py once_params), for any output quantization.
"""

from __future__ import annotations

import numpy as np

from ..arith import gemmlowp
from ..arith.fixedpoint import rdbpot
from ..ir.registry import OpDef, register
from ..ir.types import DType
from ._common import ROUNDING, out_type
from ._elementwise import same_dtype, unary_infer
from ._logistic16 import int16_params, int16_quant, tanh16
from ._unary import libm
from .sigmoid import logistic_params, lookup, once_params, to_q4


@register
class Tanh(OpDef):
    name = "tanh"
    attrs = {"rounding": ROUNDING}
    inplace = True
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        dtype = same_dtype(graph, node, self.dtypes)
        if dtype == DType.INT16:
            return {"kind": "s16", "size": out_type(graph, node).size,
                    **int16_params(graph, node, *int16_quant(graph, node), pot_shifts=(0, 1))}
        if dtype == DType.INT8 and node.attrs.get("rounding") == "single":
            return once_params(graph, node, np.tanh)
        return logistic_params(graph, node, dtype)

    def reference(self, graph, node, p, inputs):
        (x,) = inputs
        if x.dtype == np.float32:
            return [libm(np.tanh, x)]
        if x.dtype == np.int16:
            return [tanh16(p, x)]
        if "table" in p:
            return [lookup(p, x)]
        v, q4 = to_q4(p, x)
        out = np.clip(rdbpot(gemmlowp.tanh(q4, 4), 24), -128, 127)
        out = np.where(v <= -p["radius"], -128, np.where(v >= p["radius"], 127, out))
        return [out.astype(np.int8)]
