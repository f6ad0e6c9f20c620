"""Fixed-point multipliers, computed exactly as TFLite Micro's Prepare functions compute them.

A real-valued rescale d becomes (M, s) with d ~= M * 2^(s - 31) and M in [2^30, 2^31): frexp splits d into a
fraction q in [0.5, 1) and exponent s, M = round(q * 2^31) with halves away from zero (std::round), a carry
to 2^31 renormalizes to 2^30 with s + 1, and tiny d (s < -31) flushes to (0, 0). Everything is in double,
as TFLite Micro does it; where TFLite Micro first rounds a product to float, callers pass that float.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import CompileError

# The runtime applies a shift s as a left shift of an int32 by max(s, 0) and a RoundingDivideByPOT by
# max(-s, 0) (crt fixedpoint.h, simd.h): both are defined up to 31 bits. Shifts below -31 flush to (0, 0)
# as in TFLite; anything above 31 (a rescale of 2^31 or more) would be undefined behaviour in C.
MAX_SHIFT = 31


def round_half_away(x: float) -> int:
    """std::round: halves go away from zero."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def quantize_multiplier(d: float, where: str = "") -> tuple[int, int]:
    """TFLite's QuantizeMultiplier: (M, shift), positive shift meaning shift left. A rescale that is not
    finite or needs a shift above MAX_SHIFT is refused (CompileError at `where`): the kernels cannot apply it."""
    d = float(d)
    if not math.isfinite(d):
        raise CompileError(f"rescale factor {d} (from the quantization scales) is not finite", where)
    if d == 0.0:
        return 0, 0
    q, s = math.frexp(d)
    m = round_half_away(q * (1 << 31))
    if m == (1 << 31):
        m //= 2
        s += 1
    if s < -31:
        return 0, 0
    if s > MAX_SHIFT:
        raise CompileError(f"rescale factor {d:.6g} (from the quantization scales) needs a shift of {s}, above the "
                           f"{MAX_SHIFT} the kernels apply", where)
    return m, s


def quantize_multipliers(values, where: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Per-channel multipliers and shifts as int32 arrays."""
    pairs = [quantize_multiplier(v, where) for v in np.asarray(values, dtype=np.float64).ravel()]
    return (np.array([p[0] for p in pairs], dtype=np.int32), np.array([p[1] for p in pairs], dtype=np.int32))


def f32(x: float) -> float:
    """Round a double to float32 and back, where TFLite Micro computes a value in float (overflowing to
    infinity as float32 does)."""
    with np.errstate(over="ignore"):
        return float(np.float32(x))


def round_to_int32_saturating(x: float) -> int:
    """round_half_away for a float32 quotient, saturated to int32: a tiny (still valid) scale makes f / scale
    overflow float32 to infinity, and every caller clamps the result to its dtype anyway."""
    if math.isinf(x):
        return (1 << 31) - 1 if x > 0 else -(1 << 31)
    return max(-(1 << 31), min((1 << 31) - 1, round_half_away(x)))


def quantize_value(real: float, scale: float, zero_point: int) -> int:
    """TFLite's activation-range quantization Q(f) = zp + int32(round(f / scale)) (float division)."""
    return zero_point + round_to_int32_saturating(f32(f32(real) / f32(scale)))


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
