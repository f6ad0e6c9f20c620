"""Fixed-point multipliers, computed exactly as TFLite Micro's Prepare functions compute them.

A real-valued rescale d becomes (M, s) with d ~= M * 2^(s - 31) and M in [2^30, 2^31): frexp splits d into a
fraction q in [0.5, 1) and exponent s, M = round(q * 2^31) with halves away from zero (std::round), a carry
to 2^31 renormalizes to 2^30 with s + 1, and tiny d (s < -31) flushes to (0, 0). Everything is in double,
as TFLite Micro does it; where TFLite Micro first rounds a product to float, callers pass that float.
"""

from __future__ import annotations

import math

import numpy as np


def round_half_away(x: float) -> int:
    """std::round: halves go away from zero."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def quantize_multiplier(d: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier: (M, shift), positive shift meaning shift left."""
    d = float(d)
    if d == 0.0:
        return 0, 0
    q, s = math.frexp(d)
    m = round_half_away(q * (1 << 31))
    if m == (1 << 31):
        m //= 2
        s += 1
    if s < -31:
        return 0, 0
    return m, s


def quantize_multipliers(values) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel multipliers and shifts as int32 arrays."""
    pairs = [quantize_multiplier(v) for v in np.asarray(values, dtype=np.float64).ravel()]
    return (np.array([p[0] for p in pairs], dtype=np.int32), np.array([p[1] for p in pairs], dtype=np.int32))


def f32(x: float) -> float:
    """Round a double to float32 and back, where TFLite Micro computes a value in float."""
    return float(np.float32(x))


def quantize_value(real: float, scale: float, zero_point: int) -> int:
    """TFLite's activation-range quantization Q(f) = zp + int32(round(f / scale)) (float division)."""
    return zero_point + round_half_away(f32(f32(real) / f32(scale)))


def activation_range(activation: str, dtype_min: int, dtype_max: int, scale: float, zero_point: int) -> tuple[int, int]:
    """CalculateActivationRangeQuantized: the clamp a fused activation becomes on quantized outputs."""
    if activation == "relu":
        return max(dtype_min, zero_point), dtype_max
    if activation == "relu6":
        return max(dtype_min, quantize_value(0.0, scale, zero_point)), min(dtype_max, quantize_value(6.0, scale, zero_point))
    if activation == "relu_n1_to_1":
        return max(dtype_min, quantize_value(-1.0, scale, zero_point)), min(dtype_max, quantize_value(1.0, scale, zero_point))
    return dtype_min, dtype_max


FLT_MAX = float(np.finfo(np.float32).max)


def float_activation_range(activation: str) -> tuple[float, float]:
    """The float clamp of a fused activation (TFLite's CalculateActivationRange)."""
    return {
        "relu": (0.0, FLT_MAX),
        "relu6": (0.0, 6.0),
        "relu_n1_to_1": (-1.0, 1.0),
    }.get(activation, (-FLT_MAX, FLT_MAX))
