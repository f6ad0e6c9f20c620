"""TFLite Micro's integer natural log (signal/src/log.cc), shared by signal.filter_bank_log and its C kernel.

log2(x) = (msb(x) - 1) + fraction, the fraction's mantissa corrected by a 129-entry table (LOG_LUT, in units
of 2^-16, linearly interpolated over 128 segments); then ln = round(log2 * 45426 / 2^16) and
out = (scale * ln + 2^15) >> 16, that last product in uint32 arithmetic (it wraps for scales past ~2900).
"""

from __future__ import annotations

import numpy as np

from ._signal import msb32

LOG_LUT = np.array([
    0, 224, 442, 654, 861, 1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797, 2944, 3087, 3224,
    3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714, 4791, 4864, 4934, 5001,
    5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507, 5533, 5557, 5578, 5595, 5610, 5622, 5631,
    5637, 5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498, 5470, 5439, 5406, 5370, 5332,
    5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697, 4630, 4561, 4490, 4416, 4341, 4264,
    4184, 4103, 4020, 3935, 3848, 3759, 3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981, 2875, 2768, 2659, 2549,
    2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353, 1224, 1094, 963, 830, 695, 559, 421, 282, 142, 0,
    0], dtype=np.int64)
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
