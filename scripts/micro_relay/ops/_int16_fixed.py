"""gemmlowp's and TFLite's int16 fixed-point primitives (fixedpoint.h, R/hard_swish.h), over int64 arrays
holding int16 values, for int8 HARD_SWISH's arithmetic."""

from __future__ import annotations

import numpy as np

INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1


def wrap16(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.int64)
    return ((x + (1 << 15)) & 0xFFFF) - (1 << 15)


def _trunc_div(a: np.ndarray, d: int) -> np.ndarray:
    """C integer division, truncating toward zero."""
    return np.where(a >= 0, a // d, -((-a) // d))


def srdhm16(a, b) -> np.ndarray:
    """gemmlowp SaturatingRoundingDoublingHighMul<int16>: (a*b + nudge) / 2^15, nudge 2^14 or 1 - 2^14."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    ab = a * b
    result = wrap16(_trunc_div(ab + np.where(ab >= 0, 1 << 14, 1 - (1 << 14)), 1 << 15))
    return np.where((a == INT16_MIN) & (b == INT16_MIN), INT16_MAX, result)


def sdhm16(a, b) -> np.ndarray:
    """TFLite's SaturatingDoublingHighMul: a*b / 2^15 truncated toward zero (no rounding)."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    result = wrap16(_trunc_div(a * b, 1 << 15))
    return np.where((a == INT16_MIN) & (b == INT16_MIN), INT16_MAX, result)


def rdbpot16(x, exponent: int) -> np.ndarray:
    """gemmlowp RoundingDivideByPOT on int16: the mask (2^e - 1) is an int16 too, all ones from e = 16 on."""
    x = np.asarray(x, dtype=np.int64)
    mask = int(wrap16((1 << exponent) - 1))
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return wrap16((x >> exponent) + (remainder > threshold))


def satshl16(x, amount: int) -> np.ndarray:
    """TFLite's SaturatingLeftShift on int16 (the product in int64)."""
    return np.clip(np.asarray(x, dtype=np.int64) * (1 << amount), INT16_MIN, INT16_MAX)
