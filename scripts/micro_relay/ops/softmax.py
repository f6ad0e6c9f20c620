"""nn.softmax: TFLite SOFTMAX over the last axis, out = exp(beta x) / sum exp(beta x).

int8 -> int8 and int8 -> int16 (TFLM_ARITHMETIC.md section 5, M/softmax_common.cc, R/softmax.h), gemmlowp
fixed point, no lookup table. Prepare: real = min(beta * in_s * 2^26, 2^31 - 1) in double; (M, ls) =
QuantizeMultiplierGreaterThanOne(real) (TFLite Micro aborts unless real > 1); diff_min = -floor(31 * 2^26 /
2^ls). Per row, with mx the row's maximum and d = q - mx:
    e(d)  = exp_on_negative_values_Q5(SRDHM(d << ls, M))                 for d >= diff_min
    sum   = sum of RDBPOT(e(d), 12) (wrapping int32, a Q12.19 accumulator)
    r, h  = GetReciprocal(sum): h = clz(sum), r = 1/(1+x) of (sum << h) - 2^31
    out   = clamp(RDBPOT(SRDHM(r, e(d)), 12 - h + 31 - bits) + type_min)  for d >= diff_min, else type_min
bits is 8 for int8 (exponent 35 - h) and 16 for int16 (27 - h). Only when 512 or more elements of a row sit
at its maximum can 35 - h exceed 31; TFLite Micro then aborts (TFLITE_CHECK; older versions shift by an
undefined amount), where both our implementations cap the exponent at 31.
Output quantization is checked as TFLite Micro checks it: int8 needs zp -128 and scale exactly 1/256,
int16 zp -32768 and |scale - 1/65536| <= 0.001/65536 (in float).
int16 -> int16 (R/softmax.h SoftmaxInt16; zp 0, |out_s - 2^-15| <= 0.001 * 2^-15): two 513-entry tables
built at compile time as TFLite Micro builds them at Prepare (gen_lut, in float32: exp on [-10, 0] and
1/(1+x) on [0, 1], each sample nudged by half its midpoint interpolation error), read with 7-bit linear
interpolation (lut[256 + (v >> 7)] + ((slope * (v & 127) + 64) >> 7)):
    e[c]  = LUT_exp(sat16(MBQM32(q[c] - mx, M, s) + 32767))      M, s from in_s * beta / (10 / 65535)
    sum   = sum e[c];  h = clz(sum);  r = LUT_recip(sat16((((sum << (h - 1)) + 2^13) >> 14) - 3 * 2^15))
    out   = clamp((e[c] * r + 2^(30 - h)) >> (31 - h), 0, 32767)
TFLite Micro evaluates exp with the host's expf; here it is exp in double rounded to float (correctly
rounded, as glibc's expf is in practice), so a libm that rounds differently could move a table entry by one.
float32 (R/softmax.h): mx = row max; e = expf((x - mx) * float(beta)); sum += e in order; out = e / sum.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..arith import gemmlowp
from ..arith.fixedpoint import mbqm32, rdbpot, srdhm, wrap32
from ..arith.multiplier import f32, quantize_multiplier, round_half_away
from ..ir.registry import Attr, OpDef, op_where, register
from ..ir.types import DType
from ._common import fail, out_type, types
from ._elementwise import unary_infer

QUANTIZED_KINDS = ((DType.INT8, DType.INT8), (DType.INT8, DType.INT16), (DType.INT16, DType.INT16))
SCALED_DIFF_INTEGER_BITS = 5
ACCUMULATION_INTEGER_BITS = 12


@register
class Softmax(OpDef):
    name = "nn.softmax"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    attrs = {"beta": Attr(float, 1.0)}
    inplace = True  # each row reads x[c] before writing out[c]; the planner must still check byte sizes

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        src, dst = types(graph, node)[0], out_type(graph, node)
        if src.rank < 1:
            fail(graph, node, "softmax needs at least one dimension")
        beta = float(node.attrs.get("beta", 1.0))
        depth = src.shape[-1]
        params = {"rows": src.size // depth, "depth": depth, "beta": f32(beta)}
        if (src.dtype, dst.dtype) == (DType.FLOAT32, DType.FLOAT32):
            return {**params, "kind": "f32"}
        if (src.dtype, dst.dtype) not in QUANTIZED_KINDS:
            fail(graph, node, f"softmax from {src.dtype.value} to {dst.dtype.value} is not supported "
                              "(float32 -> float32, int8 -> int8, int8 -> int16 or int16 -> int16)")
        if src.quant is None or dst.quant is None:
            fail(graph, node, "quantized softmax needs input and output quantization")
        q_out = dst.quant
        if src.dtype == DType.INT16:
            if q_out.zero_point != 0 or abs(f32(f32(q_out.scale) - f32(1.0 / 32768))) > f32(0.001 / 32768):
                fail(graph, node, f"int16 softmax output must have zero point 0 and scale 1/32768, got "
                                  f"{q_out.zero_point} and {q_out.scale}")
            mult, shift = quantize_multiplier(src.quant.scale * beta / (10.0 / 65535.0), where=op_where(graph, node))
            exp_lut, recip_lut = int16_luts()
            return {**params, "kind": "s16_s16", "mult": mult, "shift": shift, "exp_lut": exp_lut,
                    "recip_lut": recip_lut}
        if dst.dtype == DType.INT8 and (q_out.zero_point != -128 or f32(q_out.scale) != 1.0 / 256):
            fail(graph, node, f"int8 softmax output must have zero point -128 and scale 1/256, got "
                              f"{q_out.zero_point} and {q_out.scale}")
        if dst.dtype == DType.INT16 and (q_out.zero_point != -32768 or
                                         abs(f32(f32(q_out.scale) - f32(1.0 / 65536))) > f32(0.001 / 65536)):
            fail(graph, node, f"int16 softmax output must have zero point -32768 and scale 1/65536, got "
                              f"{q_out.zero_point} and {q_out.scale}")
        real = min(beta * src.quant.scale * float(1 << (31 - SCALED_DIFF_INTEGER_BITS)), float((1 << 31) - 1))
        if not real > 1.0:
            fail(graph, node, f"beta * input scale = {beta * src.quant.scale} is too small for TFLite Micro's "
                              f"int8 softmax (beta * scale * 2^26 must exceed 1)")
        mult, shift = quantize_multiplier(real, where=op_where(graph, node))
        radius = math.floor(((1 << SCALED_DIFF_INTEGER_BITS) - 1) * float(1 << (31 - SCALED_DIFF_INTEGER_BITS))
                            / 2.0 ** shift)
        out_bits = 8 * dst.dtype.itemsize
        return {**params, "kind": f"s8_s{out_bits}", "mult": mult, "shift": shift, "diff_min": -radius,
                "out_bits": out_bits}

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        (x,) = inputs
        rows = x.reshape(p["rows"], p["depth"])
        if p["kind"] == "f32":
            return [_softmax_float(rows, p["beta"]).reshape(out.shape)]
        if p["kind"] == "s16_s16":
            return [_softmax_int16(rows, p).reshape(out.shape)]
        d = rows.astype(np.int64) - rows.max(axis=1, keepdims=True).astype(np.int64)
        used = d >= p["diff_min"]
        exps = gemmlowp.exp_on_negative_values(srdhm(wrap32(d << p["shift"]), p["mult"]), SCALED_DIFF_INTEGER_BITS)
        total = wrap32(np.where(used, rdbpot(exps, ACCUMULATION_INTEGER_BITS), 0).sum(axis=1, keepdims=True))
        scale, bits_over_unit = gemmlowp.reciprocal(total, ACCUMULATION_INTEGER_BITS)
        exponent = np.minimum(bits_over_unit + 31 - p["out_bits"], 31)
        lo, hi = out.dtype.min, out.dtype.max
        values = np.clip(rdbpot(srdhm(scale, exps), exponent) + lo, lo, hi)
        return [np.where(used, values, lo).astype(out.dtype.numpy).reshape(out.shape)]


def _softmax_float(rows: np.ndarray, beta: float) -> np.ndarray:
    """TFLite's float softmax in float32, summing each row in order."""
    mx = rows.max(axis=1, keepdims=True)
    exps = np.exp((rows - mx) * np.float32(beta)).astype(np.float32)
    total = np.zeros((rows.shape[0], 1), dtype=np.float32)
    for c in range(rows.shape[1]):
        total += exps[:, c:c + 1]
    return (exps / total).astype(np.float32)


def _gen_lut(func, input_min: float, input_max: float, output_min: float, output_max: float) -> np.ndarray:
    """TFLite's gen_lut<float, int16_t, int16_t>: 512 samples of func plus one, in float32 arithmetic."""
    f = np.float32
    lo, hi = f(input_min), f(input_max)
    step = f((hi - lo) / f(512))
    half_step = f(step / f(2))
    scale = f(f(65536) / f(f(output_max) - f(output_min)))
    lut = np.zeros(513, dtype=np.int64)
    for i in range(512):
        x = f(lo + f(f(i) * step))
        val, mid, nxt = func(x), func(f(x + half_step)), func(f(lo + f(f(i + 1) * step)))
        sample = _round(f(val * scale))
        interp = _round(f(f(f(nxt * scale) + sample) / f(2)))
        bias = _round(f(f(interp - _round(f(mid * scale))) / f(2)))
        lut[i] = min(max(f(sample - bias), -32768), 32767)
    lut[512] = min(max(_round(f(func(hi) * scale)), -32768), 32767)
    return lut.astype(np.int16)


def _round(x) -> np.float32:
    return np.float32(round_half_away(float(x)))


def _expf(x: np.float32) -> np.float32:
    return np.float32(math.exp(float(x)))


def _one_over_one_plus(x: np.float32) -> np.float32:
    return np.float32(np.float32(1) / np.float32(np.float32(1) + x))


@functools.lru_cache(maxsize=None)
def int16_luts() -> tuple[np.ndarray, np.ndarray]:
    """(exp on [-10, 0], 1/(1+x) on [0, 1]), built once."""
    return _gen_lut(_expf, -10.0, 0.0, -1.0, 1.0), _gen_lut(_one_over_one_plus, 0.0, 1.0, -1.0, 1.0)


def _lut_lookup(value: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """Linear interpolation on a 513-entry table for int16 inputs; the slope wraps to int16 as in C++."""
    lut = lut.astype(np.int64)
    index = 256 + (value >> 7)
    slope = ((lut[index + 1] - lut[index] + 32768) & 0xFFFF) - 32768
    return (lut[index] + ((slope * (value & 0x7F) + 64) >> 7)).astype(np.int64)


def _softmax_int16(rows: np.ndarray, p: dict) -> np.ndarray:
    """TFLite's SoftmaxInt16 on a [rows, depth] array."""
    x = rows.astype(np.int64)
    diff = x - x.max(axis=1, keepdims=True)
    scaled = np.clip(mbqm32(diff, p["mult"], p["shift"]) + 32767, -32768, 32767)
    exps = _lut_lookup(scaled, p["exp_lut"])
    exps = ((exps + 32768) & 0xFFFF) - 32768  # cached in the int16 output buffer
    total = exps.sum(axis=1, keepdims=True)
    headroom = gemmlowp.count_leading_zeros(total)
    shifted = ((total << (headroom - 1)) + (1 << 13)) >> 14
    recip = _lut_lookup(np.clip(shifted - ((1 << 15) + (1 << 16)), -32768, 32767), p["recip_lut"])
    recip = ((recip + 32768) & 0xFFFF) - 32768
    right = 31 - headroom
    result = (exps * recip + (np.int64(1) << (right - 1))) >> right
    return np.clip(result, 0, 32767).astype(np.int16)
