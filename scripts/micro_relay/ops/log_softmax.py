"""nn.log_softmax over the last axis: TFLite LOG_SOFTMAX, ONNX LogSoftmax, PyTorch log_softmax, the classifier
head of networks trained with NLL loss.

float32 (R/log_softmax.h): out = (x - max) - logf(sum(expf(x - max))), rows summed in order (expf and logf
here as the double functions rounded once to float32).
int8 (M/log_softmax.cc, R/log_softmax.h): the output is fixed at scale 16/256, zero point 127 (TFLite Micro
refuses anything else). Prepare, in double:
    M, s = QuantizeMultiplierGreaterThanOne(min(in_s * 2^26, 2^31 - 1))      (s >= 1)
    RM, RS = QuantizeMultiplierSmallerThanOneExp(2^(31 - s) / M)            (RS <= 0)
    diff_min = -floor(31 * 2^26 / 2^s)
Invoke, per row (d = x - max; Q5 = MBQM32(d, M, s)):
    sum = wrapping sum over d >= diff_min of RDBPOT(exp_Q5(Q5), 12)        (Q12.19)
    L = log_q5(sum) (ops/_log_softmax.py);  lim = max(diff_min - 1, MBQM32(L + INT32_MIN, RM, RS))
    out = d > lim ? clamp(RDBPOT(Q5 - L, 22) + 127, -128, 127) : -128
"""

from __future__ import annotations

import math

import numpy as np

from ..arith import gemmlowp
from ..arith.fixedpoint import INT32_MIN, mbqm32, rdbpot, wrap32
from ..arith.multiplier import f32, quantize_multiplier
from ..ir.registry import OpDef, op_where, register
from ..ir.types import DType
from ._common import fail, out_type, types
from ._elementwise import unary_infer
from ._log_softmax import log_q5
from ._unary import libm

OUT_SCALE, OUT_ZERO_POINT = 16.0 / 256, 127
DIFF_INTEGER_BITS = 5
MAX_DEPTH = 4095  # the Q12.19 sum of exps (each at most 2^19) overflows int32 from 4096 elements


@register
class LogSoftmax(OpDef):
    name = "nn.log_softmax"
    dtypes = (DType.INT8, DType.FLOAT32)
    inplace = True  # each row is read before it is written

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        data, out = types(graph, node)[0], out_type(graph, node)
        kinds = {(DType.FLOAT32, DType.FLOAT32): "f32", (DType.INT8, DType.INT8): "s8"}
        kind = kinds.get((data.dtype, out.dtype))
        if kind is None:
            fail(graph, node, f"log_softmax supports float32 and int8 (same type in and out), got "
                              f"{data.dtype.value} -> {out.dtype.value}")
        depth = data.shape[-1] if data.rank else 1
        params = {"kind": kind, "rows": data.size // depth if depth else 0, "depth": depth}
        if kind == "f32":
            return params
        return {**params, **_int8_params(graph, node, data, out, depth)}

    def reference(self, graph, node, p, inputs):
        (x,) = inputs
        rows = x.reshape(p["rows"], p["depth"])
        if p["kind"] == "f32":
            return [_float_rows(rows).reshape(x.shape)]
        return [_int8_rows(rows, p).reshape(x.shape)]


def _int8_params(graph, node, data, out, depth: int) -> dict:
    if data.rank < 1:
        fail(graph, node, "int8 log_softmax needs at least one dimension")
    if data.quant is None or out.quant is None:
        fail(graph, node, "int8 log_softmax needs input and output quantization")
    if f32(out.quant.scale) != OUT_SCALE or out.quant.zero_point != OUT_ZERO_POINT:
        fail(graph, node, f"int8 log_softmax output must have scale 16/256 and zero point 127, got "
                          f"{out.quant.scale} and {out.quant.zero_point}")
    if depth > MAX_DEPTH:
        fail(graph, node, f"int8 log_softmax over {depth} elements: the fixed-point sum of exps overflows "
                          f"above {MAX_DEPTH}")
    scale = float(data.quant.scale)
    real = min(scale * float(1 << (31 - DIFF_INTEGER_BITS)), float((1 << 31) - 1)) if math.isfinite(scale) else 0.0
    if not real > 1.0:
        fail(graph, node, f"int8 log_softmax input scale {scale} is out of range (in_s * 2^26 must exceed 1)")
    where = op_where(graph, node)
    mult, shift = quantize_multiplier(real, where)
    reverse = float(1 << (31 - shift)) / float(mult)
    if not 0.0 < reverse < 1.0:
        fail(graph, node, f"int8 log_softmax input scale {scale} gives a reverse scale {reverse} outside (0, 1)")
    rev_mult, rev_shift = quantize_multiplier(reverse, where)
    if rev_shift > 0:
        fail(graph, node, f"int8 log_softmax input scale {scale} gives a reverse shift {rev_shift} above 0")
    radius = math.floor(((1 << DIFF_INTEGER_BITS) - 1) * float(1 << (31 - DIFF_INTEGER_BITS)) / float(1 << shift))
    return {"mult": mult, "shift": shift, "rev_mult": rev_mult, "rev_shift": rev_shift, "diff_min": -radius}


def _float_rows(rows: np.ndarray) -> np.ndarray:
    rows = rows.astype(np.float32)
    shifted = (rows - rows.max(axis=1, keepdims=True)).astype(np.float32)
    total = np.zeros((rows.shape[0], 1), dtype=np.float32)
    for c in range(rows.shape[1]):
        total += libm(np.exp, shifted[:, c:c + 1])
    return (shifted - libm(np.log, total)).astype(np.float32)


def _int8_rows(rows: np.ndarray, p: dict) -> np.ndarray:
    d = rows.astype(np.int64) - rows.max(axis=1, keepdims=True).astype(np.int64)
    used = d >= p["diff_min"]
    q5 = mbqm32(np.where(used, d, 0), p["mult"], p["shift"])
    exps = rdbpot(gemmlowp.exp_on_negative_values(q5, DIFF_INTEGER_BITS), 12)
    total = wrap32(np.where(used, exps, 0).sum(axis=1, keepdims=True))
    log_sum = log_q5(total)
    limit = np.maximum(p["diff_min"] - 1, mbqm32(wrap32(log_sum + INT32_MIN), p["rev_mult"], p["rev_shift"]))
    values = np.clip(rdbpot(wrap32(q5 - log_sum), 31 - DIFF_INTEGER_BITS - 4) + 127, -128, 127)
    return np.where(d > limit, values, -128).astype(np.int8)
