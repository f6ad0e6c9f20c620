"""TFLite Micro's integer natural log (signal/src/log.cc), shared by signal.filter_bank_log and its C kernel.

log2(x) = (msb(x) - 1) + fraction, the fraction's mantissa corrected by a 129-entry table (LOG_LUT, in units
of 2^-16, linearly interpolated over 128 segments; computed below from its definition); then ln = round(log2 * 45426 / 2^16) and
out = (scale * ln + 2^15) >> 16, that last product in uint32 arithmetic (it wraps for scales past ~2900).
"""

from __future__ import annotations

import math

import numpy as np

from ._signal import msb32

# log2(1 + i/128) - i/128, the mantissa's distance from the chord, in units of 2^-16 at the 129 segment ends,
# and a closing 0 that the interpolation of the last segment reads; crt/src/mr_signal_filter_bank_log.c holds
# the same values (tests/ops/test_signal_vs_tflm.py compares them)
LOG_LUT = np.array([round((math.log2(1 + i / 128) - i / 128) * 65536) for i in range(129)] + [0], dtype=np.int64)
LOG_COEFF = 45426  # round(ln(2) * 2^16)


def log32(x: np.ndarray, scale: int) -> np.ndarray:
    """TFLite Micro's Log32(x, scale) for uint32 x > 1, as int64 values of the uint32 result."""
    x = np.asarray(x, dtype=np.int64)
    integer = msb32(x) - 1
    frac = x - (np.int64(1) << integer)
    frac = np.where(integer < 16, frac << np.maximum(16 - integer, 0), frac >> np.maximum(integer - 16, 0))
    seg = frac >> 9
    c0, c1 = LOG_LUT[seg], LOG_LUT[seg + 1]
    fraction = frac + c0 + (((c1 - c0) * (frac - (seg << 9))) >> 16)
    log2 = (integer << 16) + fraction
    loge = (LOG_COEFF * log2 + 32768) >> 16
    return (((scale & 0xFFFFFFFF) * loge + 32768) & 0xFFFFFFFF) >> 16
