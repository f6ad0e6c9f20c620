"""Quantization parameters from real ranges, in the TFLite integer scheme the kernels implement.

Activations (asymmetric, int8): a range [lo, hi] is first widened to hold 0 (so that 0.0, the value of
padding and of a relu's lower half, is exact), then
    scale = (hi - lo) / 255             rounded to float32, as a flatbuffer stores it
    zp    = clamp(round(-128 - lo / scale), -128, 127)
An empty range (hi == lo == 0, a tensor that was always zero) gets [0, 1]: any scale represents it exactly.

Weights (symmetric, int8, zero point 0): per output channel (or per tensor)
    scale_c = max |w_c| / 127           float32;  q = clamp(round(w / scale_c), -127, 127)
The range [-127, 127] (not -128) keeps the weights symmetric, as TFLite's converter does. An all-zero
channel takes the tensor's largest scale (its weights are 0 under any scale).

Bias (int32, zero point 0): q = clamp(round(b / (in_s * w_s_c)), int32), the bias scale being the product
TFLite Micro assumes (in float32, which is what the per-tensor FULLY_CONNECTED multiplier reads).

int16 activations (TFLite's 16x8 scheme): symmetric, zero point 0, scale = max(|lo|, |hi|) / 32767; the
weights stay int8 as above and the bias becomes int64 (same scale, same rounding).
"""

from __future__ import annotations

import numpy as np

from ..arith.multiplier import f32
from ..ir.types import DType, Quant


def round_half_away(x: np.ndarray) -> np.ndarray:
    """std::round on arrays: halves away from zero."""
    x = np.asarray(x, dtype=np.float64)
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def activation_quant(lo: float, hi: float, dtype: DType = DType.INT8, min_scale: float = 0.0,
                     max_scale: float = np.inf) -> Quant:
    """Asymmetric per-tensor quantization covering [lo, hi] (widened to hold 0) with the type's range.

    `min_scale` raises the scale when a kernel needs it (ADD needs an output scale above a bound); the
    range then grows around the same zero. `max_scale` lowers it (DIV needs one below a bound); the range
    then shrinks and the values beyond it saturate."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"range [{lo}, {hi}] is not finite")
    if hi == lo:
        hi = 1.0
    if dtype == DType.INT16:  # TFLite's int16 activations are symmetric with zero point 0
        return Quant.tensor(_bounded(max(-lo, hi) / dtype.max, min_scale, max_scale), 0)
    scale = _bounded((hi - lo) / (dtype.max - dtype.min), min_scale, max_scale)
    zero_point = int(round_half_away(dtype.min - lo / scale))
    return Quant.tensor(scale, min(max(zero_point, dtype.min), dtype.max))


def _bounded(value: float, low: float, high: float) -> float:
    """value raised to low, else lowered to high, as float32 still within the bound it met."""
    if value >= low and value > high:
        return float32_at_most(high)
    return float32_at_least(max(value, low))


def float32_at_most(value: float) -> float:
    """The float32 nearest `value` that is not above it."""
    scale = np.float32(value)
    if float(scale) > value:
        scale = np.nextafter(scale, np.float32(0))
    return float(scale)


def float32_at_least(value: float) -> float:
    """The float32 nearest `value` that is not below it (so a bound like ADD's stays met)."""
    scale = np.float32(value)
    if float(scale) < value:
        scale = np.nextafter(scale, np.float32(np.inf))
    return float(scale)


def quant_range(q: Quant, dtype: DType = DType.INT8) -> tuple[float, float]:
    """The real values the extreme codes of a per-tensor quantization stand for."""
    return q.scale * (dtype.min - q.zero_point), q.scale * (dtype.max - q.zero_point)


def quantize_array(x: np.ndarray, q: Quant, dtype: DType = DType.INT8) -> np.ndarray:
    """Per-tensor real -> integer as qnn.quantize does it: round(x / float(s)) + zp, saturated."""
    v = round_half_away(np.asarray(x, dtype=np.float32) / np.float32(q.scale)) + q.zero_point
    return np.clip(v, dtype.min, dtype.max).astype(dtype.numpy)


def dequantize_array(q_values: np.ndarray, q: Quant) -> np.ndarray:
    """Per-tensor integer -> real, in double."""
    return q.scale * (np.asarray(q_values, dtype=np.float64) - q.zero_point)


def weight_quant(w: np.ndarray, axis: int | None) -> tuple[np.ndarray, Quant]:
    """Symmetric int8 weights, per channel along `axis` (None: per tensor)."""
    w = np.asarray(w, dtype=np.float64)
    if axis is None:
        peak = np.array([np.abs(w).max(initial=0.0)])
    else:
        peak = np.abs(np.moveaxis(w, axis, 0)).reshape(w.shape[axis], -1).max(axis=1, initial=0.0)
    fallback = peak.max(initial=0.0) or 1.0
    scales = np.array([f32(p / 127.0) if p > 0 else f32(fallback / 127.0) for p in peak], dtype=np.float64)
    shape = [1] * w.ndim
    if axis is not None:
        shape[axis] = -1
    q = np.clip(round_half_away(w / scales.reshape(shape)), -127, 127).astype(np.int8)
    quant = Quant(tuple(scales), (0,) * len(scales), axis)
    return q, quant


def bias_quant(b: np.ndarray, in_scale: float, weight: Quant, dtype: DType = DType.INT32
               ) -> tuple[np.ndarray, Quant]:
    """int32 (or int64) bias with scale in_s * w_s (per channel when the weight is), zero point 0."""
    scales = np.array([f32(f32(in_scale) * f32(s)) for s in weight.scales], dtype=np.float64)
    hi = min(dtype.max, 2 ** 63 - 1024)  # the largest float64 below 2^63, so the cast cannot overflow
    q = np.clip(round_half_away(np.asarray(b, dtype=np.float64) / scales), -hi - 1, hi).astype(dtype.numpy)
    axis = 0 if weight.per_channel else None
    return q, Quant(tuple(scales), (0,) * len(scales), axis)
