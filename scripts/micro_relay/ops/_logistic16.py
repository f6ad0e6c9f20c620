"""int16 LOGISTIC and TANH as TFLite Micro computes them (M/logistic_common.cc, M/tanh.cc, RI/logistic.h,
RI/tanh.h): a 256-entry table of sigmoid(k/24) in 0.16 fixed point, linearly interpolated.

The table. Linear interpolation between exact samples of a concave curve always falls below it, so the
entries are raised by a quarter of the sagittas of the two chords that meet at them (the sagitta of a chord
being how far the curve's midpoint lies above the chord's), then rounded:
    S(x) = 65536 / (1 + exp(-x)),  sag(a, b) = S((a + b) / 48) - (S(a / 24) + S(b / 24)) / 2
    table[k] = round(S(k / 24) + (sag(k - 1, k) + sag(k, k + 1)) / 4)     for k < 255 (sag(-1, 0) taken as 0)
    table[255] = 65535 (sigmoid's limit, as the largest uint16)
This construction is ours; crt/src/mr_sigmoid_table.c holds its output (tests/ops/test_unary_math_vs_tflm.py
checks the file against `sigmoid_table()` and every int16 input against TFLite Micro).

Prepare (both ops): zero points 0, output scale 2^-15 (log2 within 1e-3, TFLite's CheckedLog2, in float).
The input moves to the table's scale 1/(3 * 4096): a power-of-two input scale 2^-12 (tanh: also 2^-11) uses
the multiplier 3 << shift with no shift; any other scale gets M = int(in_s * 12288 * 2^n) for the smallest n
with M > 16383.5 (n <= 31), then per element x = (q * M + 2^(n-1)) >> n.
    sigmoid: h = |x| >> 9, t = |x| & 511; r = h >= 255 ? 0x7FFF << 10 : (T[h] << 9) + t * (T[h+1] - T[h]);
             out = (x >= 0 ? r + 512 : 2^25 - r + 511) >> 10
    tanh:    h = |x| >> 8, t = |x| & 255; r = h >= 255 ? 0xFFFF << 8 : (T[h] << 8) + t * (T[h+1] - T[h]);
             out = (x >= 0 ? r - 2^23 + 128 : 2^23 - r + 127) >> 8     (arithmetic shift)
"""

from __future__ import annotations

import functools

import numpy as np

from ..arith.multiplier import round_half_away
from ._common import fail, out_type, types

TABLE_SIZE = 256


@functools.lru_cache(maxsize=1)
def sigmoid_table() -> tuple[int, ...]:
    """The 256 uint16 entries (see the module docstring)."""
    k = np.arange(TABLE_SIZE, dtype=np.float64)

    def s(x):
        return 65536.0 / (1.0 + np.exp(-x))

    exact = s(k / 24)
    sag = s((k[:-1] + 0.5) / 24) - (exact[:-1] + exact[1:]) / 2  # chord k -> k + 1
    left = np.concatenate([[0.0], sag])
    right = np.concatenate([sag, [0.0]])
    table = [int(round_half_away(v)) for v in exact + (left + right) / 4]
    table[-1] = 65535
    return tuple(table)


def _checked_log2(x: float) -> tuple[bool, int]:
    """TFLite's CheckedLog2 in float32: (is a power of two within 1e-3 in log2, the rounded log2)."""
    with np.errstate(all="ignore"):
        log2 = np.float32(np.log(np.float32(x))) * (np.float32(1.0) / np.float32(np.log(np.float32(2.0))))
    rounded = np.float32(round_half_away(float(log2)))
    return bool(abs(np.float32(log2 - rounded)) < np.float32(1e-3)), int(rounded)


def int16_params(graph, node, q_in, q_out, pot_shifts: tuple[int, ...]) -> dict:
    """(mult, shift) as the Eval loop uses them, after the power-of-two case's substitution."""
    if (q_in.zero_point, q_out.zero_point) != (0, 0):
        fail(graph, node, f"int16 {node.op} needs zero points of 0, got {q_in.zero_point} and {q_out.zero_point}")
    out_pot, out_log2 = _checked_log2(q_out.scale)
    if not out_pot or out_log2 != -15:
        fail(graph, node, f"int16 {node.op} needs output scale 2^-15, got {q_out.scale}")
    in_pot, in_log2 = _checked_log2(q_in.scale)
    shift = 12 + in_log2
    if in_pot and shift in pot_shifts:
        return {"mult": 3 << shift, "shift": 0}
    multiplier, shift = float(q_in.scale) * 4096.0 * 3.0, 0
    while multiplier <= 32767.0 / 2.0 and shift <= 30:
        shift += 1
        multiplier *= 2.0
    mult = int(multiplier)
    if not 0 < mult <= 32767:
        # above 32767 TFLite Micro's products overflow int32; 0 would take its power-of-two path with 3 << 31
        fail(graph, node, f"int16 {node.op} input scale {q_in.scale} is outside what TFLite Micro computes "
                          f"(input multiplier {mult}, allowed 1..32767)")
    return {"mult": mult, "shift": shift}


def _scaled(p: dict, x: np.ndarray) -> np.ndarray:
    rounding = (1 << (p["shift"] - 1)) if p["shift"] > 0 else 0
    return (x.astype(np.int64) * p["mult"] + rounding) >> p["shift"]


def _interpolate(ax: np.ndarray, frac_bits: int) -> tuple[np.ndarray, np.ndarray]:
    """(saturated?, interpolated value) for |x| with `frac_bits` bits between table entries."""
    table = np.array(sigmoid_table(), dtype=np.int64)
    h = ax >> frac_bits
    inside = h < 255
    hi = np.where(inside, h, 0)
    ua, ub = table[hi], table[hi + 1]
    return ~inside, (ua << frac_bits) + (ax & ((1 << frac_bits) - 1)) * (ub - ua)


def logistic16(p: dict, x: np.ndarray) -> np.ndarray:
    v = _scaled(p, x)
    saturated, r = _interpolate(np.abs(v), 9)
    r = np.where(saturated, 0x7FFF << 10, r)
    r = np.where(v >= 0, r + (1 << 9), (1 << 25) - r + (1 << 9) - 1)
    return (r >> 10).astype(np.int16)


def tanh16(p: dict, x: np.ndarray) -> np.ndarray:
    v = _scaled(p, x)
    saturated, r = _interpolate(np.abs(v), 8)
    r = np.where(saturated, 0xFFFF << 8, r)
    r = np.where(v >= 0, r - (1 << 23) + (1 << 7), -r + (1 << 23) + (1 << 7) - 1)
    return (r >> 8).astype(np.int16)


def int16_quant(graph, node):
    return types(graph, node)[0].quant, out_type(graph, node).quant


def table_c_source() -> str:
    """crt/src/mr_sigmoid_table.c as sigmoid_table() gives it (the test compares the committed file)."""
    values = sigmoid_table()
    rows = [", ".join(f"{v}u" for v in values[i:i + 10]) for i in range(0, TABLE_SIZE, 10)]
    body = ",\n    ".join(rows)
    return ("/* sigmoid(k / 24) in 0.16 fixed point, raised for linear interpolation: generated by\n"
            " * scripts/micro_relay/ops/_logistic16.py (sigmoid_table), whose docstring gives the construction. */\n"
            '#include "micro_relay/sigmoid_table.h"\n\n'
            f"const uint16_t mr_sigmoid_table[MR_SIGMOID_TABLE_SIZE] = {{\n    {body}\n}};\n")
