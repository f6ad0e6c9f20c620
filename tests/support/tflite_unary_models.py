"""Single-op TFLite models of the unary math builtins, their inputs, and how their float outputs are judged.

Builders only make models TFLite Micro's Prepare accepts unless a test says otherwise. Inputs are chosen
per op so every branch runs: all 256 int8 values (every table entry), all 65536 int16 values, and float
inputs with the values a libm function treats apart (NaN, infinities, signed zeros, halves, overflow).

Float outputs: ops TFLite Micro computes with IEEE operations only (abs, neg, sqrt, rsqrt, square, floor,
ceil, round, hard_swish) must match bit for bit; ops that call libm (expf, logf, expm1f, tanhf) match within
LIBM_ULPS units in the last place: our reference rounds the double function once (within half an ulp), glibc's
expf/logf/expm1f are within one ulp of that and its tanhf within two. (The compiled C calls the same libm as
TFLite Micro here and measured 0 ulps apart.) NaN matches NaN.
"""

from __future__ import annotations

import numpy as np

from micro_relay.frontend.tflite.writer import TFLiteBuilder

from .model_check import compare_with_tflm

EXACT_FLOAT_OPS = ("ABS", "NEG", "SQRT", "RSQRT", "SQUARE", "FLOOR", "CEIL", "ROUND", "HARD_SWISH")
LIBM_ULPS = {"EXP": 1, "LOG": 1, "ELU": 1, "LOGISTIC": 1, "TANH": 2}
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 2.5, 3.0, -3.0, 88.8, -104.0,
                     1e-30, -1e-30, 1e30, -1e30, 3.4e38, 1e-45], dtype=np.float32)


def unary_math_model(op="ABS", dtype="int8", shape=(1, 256), in_quant=(0.05, 0), out_quant=(0.05, 0),
                     **options) -> bytes:
    """One input and one output of `dtype`, quantized with (scale, zero point) unless float32."""
    def quant(q):
        return {} if dtype == "float32" else {"scale": q[0], "zero_point": q[1]}

    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype, **quant(in_quant))
    y = b.tensor("output", shape, dtype, **quant(out_quant))
    b.op(op, [x], [y], **options)
    return b.inputs(x).outputs(y).build()


def all_int8(shape=(1, 256), low: int = -128) -> np.ndarray:
    """Every int8 value from `low` up, repeated to fill `shape` (RSQRT passes its zero point)."""
    values = np.arange(low, 128, dtype=np.int64)
    return np.resize(values, int(np.prod(shape))).astype(np.int8).reshape(shape)


def all_int16() -> np.ndarray:
    return np.arange(-32768, 32768, dtype=np.int64).astype(np.int16).reshape(1, 65536)


def float_inputs(shape, rng: np.random.Generator, spread: float) -> np.ndarray:
    """Normal values times `spread`, a fifth of them rounded to halves (ROUND's ties), then the specials."""
    size = int(np.prod(shape))
    x = (rng.standard_normal(size) * spread).astype(np.float32)
    halves = rng.random(size) < 0.2
    x[halves] = np.round(x[halves] * 2) / 2
    count = min(size, len(SPECIALS))
    x[:count] = SPECIALS[:count]
    return x.reshape(shape)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in float32 units in the last place (0 for two NaNs, huge for NaN against a number)."""
    def ordered(v):
        bits = np.asarray(v, dtype=np.float32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    distance = np.abs(ordered(a) - ordered(b))
    both_nan = np.isnan(a) & np.isnan(b)
    one_nan = np.isnan(a) ^ np.isnan(b)
    return np.where(both_nan, 0, np.where(one_nan, 1 << 40, distance))


def assert_ulps(ours, theirs, ulps: int, what: str) -> None:
    ours, theirs = np.asarray(ours, np.float32), np.asarray(theirs, np.float32).reshape(np.shape(ours))
    distance = ulp_distance(ours, theirs)
    worst = int(np.argmax(distance)) if distance.size else 0
    assert distance.size == 0 or distance.flat[worst] <= ulps, (
        f"{what}: {int(distance.flat[worst])} ulps apart at element {worst}: input gave "
        f"{ours.flat[worst]!r} against {theirs.flat[worst]!r}")


def check_float(model: bytes, samples, ulps: int) -> None:
    """Compiled C and the reference interpreter against TFLite Micro, each float output within `ulps`."""
    result = compare_with_tflm(model, samples=samples)
    for index, (ours, ref, theirs) in enumerate(zip(result.compiled, result.reference, result.tflm)):
        assert_ulps(ours[0], theirs[0], ulps, f"compiled C vs TFLM, sample {index}")
        assert_ulps(ref[0], theirs[0], ulps, f"reference vs TFLM, sample {index}")
