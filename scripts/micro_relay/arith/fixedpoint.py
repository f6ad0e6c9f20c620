"""TFLite Micro's fixed-point primitives over numpy arrays (int64 internally, exact).

Names follow TFLM_ARITHMETIC.md section 0-1:
- srdhm: SaturatingRoundingDoublingHighMul, floor((a*b + 2^30) / 2^31), INT32_MIN*INT32_MIN saturates;
- rdbpot: RoundingDivideByPOT, x / 2^e with halves away from zero;
- mbqm32: MultiplyByQuantizedMultiplier with double rounding (TFLITE_SINGLE_ROUNDING is not set in TFLM);
- mbqm64: the int64-accumulator variant used by 16x8 convolutions;
- mbqm_single: the product rounded once (TFLite's TFLITE_SINGLE_ROUNDING form), for nodes whose rounding
  attribute is "single": ONNX QDQ models, whose meaning is the real-valued rescale rounded once.
"""

from __future__ import annotations

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


def wrap32(x):
    """Two's-complement wrap to int32, kept as int64."""
    x = np.asarray(x, dtype=np.int64)
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def srdhm(a, b):
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    overflow = (a == INT32_MIN) & (b == INT32_MIN)
    result = (a * b + (1 << 30)) >> 31
    return np.where(overflow, INT32_MAX, result)


def rdbpot(x, exponent):
    x = np.asarray(x, dtype=np.int64)
    exponent = np.asarray(exponent, dtype=np.int64)
    mask = (np.int64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def satshl(x, exponent):
    """Saturating left shift of int32 values."""
    x = np.asarray(x, dtype=np.int64)
    shifted = x << np.asarray(exponent, dtype=np.int64)
    return np.clip(shifted, INT32_MIN, INT32_MAX)


def mbqm32(x, multiplier, shift):
    """MultiplyByQuantizedMultiplier(int32 x, M, s): RDBPOT(SRDHM(x * 2^max(s,0), M), max(-s,0))."""
    shift = np.asarray(shift, dtype=np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    return rdbpot(srdhm(wrap32(np.asarray(x, dtype=np.int64) << left), multiplier), right)


def mbqm64(x, multiplier, shift):
    """MultiplyByQuantizedMultiplier(int64 x, M, s) as TFLM rounds it for 16x8 kernels."""
    x = np.asarray(x, dtype=np.int64)
    multiplier = np.asarray(multiplier, dtype=np.int64)
    shift = np.asarray(shift, dtype=np.int64)
    m16 = np.where(multiplier < 0x7FFF0000, (multiplier + (1 << 15)) >> 16, 0x7FFF)
    total_shift = 15 - shift
    rounding = np.int64(1) << (total_shift - 1)
    return wrap32((x * m16 + rounding) >> total_shift)


# mbqm_single saturates here: far outside any int8/int16 output yet with room for a zero point in int32.
SINGLE_LIMIT = 1 << 30


def mbqm_single(x, multiplier, shift):
    """x * M * 2^(s - 31) rounded once, halves up: (x M + 2^(30 - s)) >> (31 - s), exact in int64 for an int32 x
    and s <= 30 (prepare refuses more), saturated to +-2^30 (crt fixedpoint.h mr_requant_single)."""
    x = np.asarray(x, dtype=np.int64)
    total = 31 - np.asarray(shift, dtype=np.int64)
    value = (x * np.asarray(multiplier, dtype=np.int64) + (np.int64(1) << (total - 1))) >> total
    return np.clip(value, -SINGLE_LIMIT, SINGLE_LIMIT)


def saturate(x, dtype):
    """Clamp to the range of an integer numpy dtype and cast."""
    info = np.iinfo(dtype)
    return np.clip(x, info.min, info.max).astype(dtype)
