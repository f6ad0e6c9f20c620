"""What the example models share in quantizing the TFLite way: the int8 scale and zero point of a range."""

from __future__ import annotations

import numpy as np


def int8_affine(lo: float, hi: float) -> tuple[float, int]:
    """int8 scale and zero point covering [lo, hi] (always including 0), the scale rounded to float32."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 or 1.0
    zero_point = int(np.clip(round(-128 - lo / scale), -128, 127))
    return float(np.float32(scale)), zero_point
