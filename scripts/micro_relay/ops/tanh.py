"""tanh: TFLite TANH.

int8 semantics (TFLM_ARITHMETIC.md section 5, M/tanh.cc, RI/tanh.h): the same input preparation as
LOGISTIC (Q4.27 multiplier and radius), then gemmlowp's fixed-point tanh, whose exp runs on 2x as a Q5
value (ExactMulByPot relabels the integer bits):
    x = q - in_zp;  x <= -radius -> -128;  x >= radius -> 127;  otherwise
    out = clamp(RDBPOT(tanh_Q4(MBQM32(x, M, s)), 24))
The output zero point is assumed to be 0 and the scale 1/128; TFLite Micro checks neither (nor do we).
int16 is not supported (see sigmoid.py).
float32 (R/tanh.h): tanhf.
"""

from __future__ import annotations

import numpy as np

from ..arith import gemmlowp
from ..arith.fixedpoint import rdbpot
from ..ir.registry import OpDef, register
from ..ir.types import DType
from ._elementwise import same_dtype, unary_infer
from .sigmoid import logistic_params, to_q4


@register
class Tanh(OpDef):
    name = "tanh"
    dtypes = (DType.INT8, DType.FLOAT32)
    inplace = True

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        return logistic_params(graph, node, same_dtype(graph, node, (DType.INT8, DType.FLOAT32)))

    def reference(self, graph, node, p, inputs):
        (x,) = inputs
        if x.dtype == np.float32:
            return [np.tanh(x).astype(np.float32)]
        v, q4 = to_q4(p, x)
        out = np.clip(rdbpot(gemmlowp.tanh(q4, 4), 24), -128, 127)
        out = np.where(v <= -p["radius"], -128, np.where(v >= p["radius"], 127, out))
        return [out.astype(np.int8)]
