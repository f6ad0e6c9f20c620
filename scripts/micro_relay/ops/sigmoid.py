"""sigmoid: TFLite LOGISTIC, out = 1 / (1 + exp(-x)).

int8 semantics (TFLM_ARITHMETIC.md section 5, M/logistic_common.cc, RI/logistic.h): the input is moved to
gemmlowp's Q4.27 and gemmlowp's fixed-point logistic does the rest (arith/gemmlowp.py, gemmlowp.h):
    f, s = frexp(in_s * 2^27) in double; M = round(f * 2^31); radius = floor(15 * 2^27 / 2^s)
    x = q - in_zp;  x <= -radius -> -128;  x >= radius -> 127;  otherwise
    out = clamp(RDBPOT(logistic_Q4(MBQM32(x, M, s)), 23) - 128)
TFLite Micro requires out_zp = -128 and assumes out_s = 1/256 without checking (so do we).
int16 (RI/logistic.h): the interpolated sigmoid table of _logistic16.py; zero points 0, output scale 2^-15.
float32 (R/logistic.h): x > 16.619047 -> 1; x < -9 -> exp(x); else 1 / (1 + exp(-x)), with expf.
int8 with rounding "single" (a QDQ model's sigmoid): ONNX's meaning, dequantize -> float sigmoid -> quantize,
as a table (ops/_unary.py quantized_once), for any output quantization.
"""

from __future__ import annotations

import numpy as np

from ..arith import gemmlowp
from ..arith.fixedpoint import mbqm32, rdbpot
from ..ir.registry import OpDef, register
from ..ir.types import DType
from ._common import ROUNDING, fail, kernel_suffix, out_type, types
from ._elementwise import float_input_multiplier, same_dtype, unary_infer
from ._logistic16 import int16_params, int16_quant, logistic16
from ._unary import check_scales, libm, quantized_once


UPPER_CUTOFF = np.float32(16.619047164916992188)
LOWER_CUTOFF = np.float32(-9.0)


def logistic_params(graph, node, dtype: DType) -> dict:
    """The shared int8 prepare of LOGISTIC and TANH: Q4.27 input multiplier and the saturation radius."""
    params = {"kind": kernel_suffix(dtype), "size": out_type(graph, node).size}
    if dtype.is_float:
        return params
    q_in = types(graph, node)[0].quant
    if not q_in.scale > 0:
        fail(graph, node, f"{node.op} needs a positive input scale, got {q_in.scale}")
    mult, shift, radius = float_input_multiplier(q_in.scale, 4)
    params.update(in_zp=q_in.zero_point, mult=mult, shift=shift, radius=radius)
    return params


def once_params(graph, node, fn) -> dict:
    """int8 with rounding "single": the table of dequantize -> fn (float64, rounded once to float32) -> quantize."""
    q_in, q_out = check_scales(graph, node)
    return {"kind": "s8", "size": out_type(graph, node).size, "valid_min": -128,
            "table": quantized_once(lambda x: libm(fn, x), q_in, q_out)}


def lookup(p: dict, x: np.ndarray) -> np.ndarray:
    return p["table"][x.astype(np.int64) + 128]


def to_q4(p: dict, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x - in_zp, the Q4.27 input) for int8 raw values; the Q4 value only matters inside the radius."""
    v = x.astype(np.int64) - p["in_zp"]
    inside = np.clip(v, -p["radius"] + 1, p["radius"] - 1) if p["radius"] > 0 else np.zeros_like(v)
    return v, mbqm32(inside, p["mult"], p["shift"])


@register
class Sigmoid(OpDef):
    name = "sigmoid"
    attrs = {"rounding": ROUNDING}
    inplace = True
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        dtype = same_dtype(graph, node, self.dtypes)
        if dtype == DType.INT16:
            return {"kind": "s16", "size": out_type(graph, node).size,
                    **int16_params(graph, node, *int16_quant(graph, node), pot_shifts=(0,))}
        if dtype == DType.INT8 and node.attrs.get("rounding") == "single":
            return once_params(graph, node, lambda v: 1.0 / (1.0 + np.exp(-v)))
        out_zp = out_type(graph, node).quant.zero_point if dtype == DType.INT8 else -128
        if out_zp != -128:
            fail(graph, node, f"int8 sigmoid needs output zero point -128, got {out_zp}")
        return logistic_params(graph, node, dtype)

    def reference(self, graph, node, p, inputs):
        (x,) = inputs
        if x.dtype == np.float32:
            with np.errstate(over="ignore"):
                middle = np.float32(1) / (np.float32(1) + libm(np.exp, -x))
                out = np.where(x > UPPER_CUTOFF, np.float32(1), np.where(x < LOWER_CUTOFF, libm(np.exp, x), middle))
            return [out.astype(np.float32)]
        if x.dtype == np.int16:
            return [logistic16(p, x)]
        if "table" in p:
            return [lookup(p, x)]
        v, q4 = to_q4(p, x)
        out = np.clip(rdbpot(gemmlowp.logistic(q4, 4), 23) - 128, -128, 127)
        out = np.where(v <= -p["radius"], -128, np.where(v >= p["radius"], 127, out))
        return [out.astype(np.int8)]
