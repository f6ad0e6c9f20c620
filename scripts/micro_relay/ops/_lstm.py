"""The integer gate arithmetic of TFLite Micro's LSTM kernel (M/lstm_eval.h, M/lstm_eval_common.cc), shared by
nn.lstm's prepare and reference.

TFLite Micro computes every gate in int16 with 2^-12 as the gate input scale (Q3.12) and 2^-15 as the gate
output scale (Q0.15). Its int16 sigmoid and tanh (RI/logistic.h, RI/tanh.h) interpolate linearly in one
256-entry table of sigmoid(i/24) in 0.16 fixed point, whose nodes are not the rounded sigmoid: each node is
raised by half the sag of the chord to its right, so the interpolation error is balanced (the construction of
TFLite's LUT generators):
    node(i) = round(65536 * (s(x) + (s(x + h/2) - (s(x) + s(x + h)) / 2) / 2)),  x = i/24, h = 1/24
for i < 255, in double; the last node is the top of the uint16 range (it is only read as the right end of
segment 254, and saturated inputs never reach the table). The nodes are computed here from that formula and
checked against TFLite Micro through the LSTM tests; the C kernel receives them as a model constant.

  sigmoid(x), x in Q3.12:  v = 3x;  a = |v|;  u = a >> 9 (segment), t = a & 511;
      r = 0x7FFF << 10 if u >= 255 else (T[u] << 9) + t * (T[u+1] - T[u]);
      out = (r + 512) >> 10 if v >= 0 else (2^25 - r + 511) >> 10            (Q0.15, in [1, 32767])
  tanh(x):  v = (x * M + round) >> s;  a = |v|;  u = a >> 8, t = a & 255;
      r = 0xFFFF << 8 if u >= 255 else (T[u] << 8) + t * (T[u+1] - T[u]);
      out = (r - 2^23 + 128) >> 8 if v >= 0 else (-r + 2^23 + 127) >> 8         (Q0.15, arithmetic shift)
  with (M, s) = (3, 0) on the gates (input power -12) and, on the cell state of scale 2^p,
  l = 15 + p - 3: (M, s) = (3 << l, 0) when l >= 0, else (3, -l).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..arith.multiplier import f32, round_half_away

# TFLite's input layout of UNIDIRECTIONAL_SEQUENCE_LSTM (M/lstm_shared.h); the gates in that order.
GATES = ("input", "forget", "cell", "output")
INPUT, W_INPUT, W_RECURRENT, PEEPHOLE, BIAS, PROJECTION, H_STATE, C_STATE, LAYER_NORM = (
    0, 1, 5, 9, 12, 16, 18, 19, 20)
NUM_INPUTS = 24
# inputs TFLite Micro's kernel requires absent (ValidateTensorStatus): what each range is
UNSUPPORTED = ((range(9, 12), "peephole weights"), (range(16, 18), "a projection"),
               (range(20, 24), "layer normalization"))

GATE_IN_SCALE = 2.0 ** -12  # gate pre-activation (FC outputs and their sum): Q3.12
GATE_OUT_SCALE = 2.0 ** -15  # sigmoid/tanh output: Q0.15
GATE_TANH = (3, 0)  # tanh's (M, s) on a gate: the cell power -12 makes the left shift 0


@lru_cache(maxsize=1)
def sigmoid_table() -> np.ndarray:
    """The 256 interpolation nodes, uint16 values as int64 (see the module docstring)."""
    def s(x):
        return 1.0 / (1.0 + math.exp(-x))

    h = 1.0 / 24.0
    nodes = []
    for i in range(255):
        x = i * h
        sag = s(x + h / 2) - (s(x) + s(x + h)) / 2
        nodes.append(round_half_away(65536.0 * (s(x) + sag / 2)))
    nodes.append(65535)
    return np.array(nodes, dtype=np.int64)


def c_sigmoid_table() -> np.ndarray:
    """The nodes as the C kernel stores them: int16 values of node - 32768 (all nodes are >= 32768)."""
    return (sigmoid_table() - 32768).astype(np.int16)


def _interpolate(a: np.ndarray, segment_bits: int, saturated: int) -> np.ndarray:
    table = sigmoid_table()
    u = a >> segment_bits
    inside = np.minimum(u, 254)
    lo, hi = table[inside], table[inside + 1]
    t = a & ((1 << segment_bits) - 1)
    return np.where(u >= 255, saturated, (lo << segment_bits) + t * (hi - lo))


def sigmoid_s16(x: np.ndarray) -> np.ndarray:
    """TFLite Micro's int16 Logistic with input multiplier 0 and shift 0 (Q3.12 in, Q0.15 out)."""
    v = x.astype(np.int64) * 3
    r = _interpolate(np.abs(v), 9, 0x7FFF << 10)
    r = np.where(v >= 0, r + 512, (1 << 25) - r + 511)
    return (r >> 10).astype(np.int16)


def tanh_s16(x: np.ndarray, mult: int, shift: int) -> np.ndarray:
    """TFLite Micro's int16 Tanh with the effective (M, s) of tanh_params."""
    rounding = (1 << (shift - 1)) if shift > 0 else 0
    v = (x.astype(np.int64) * mult + rounding) >> shift
    r = _interpolate(np.abs(v), 8, 0xFFFF << 8)
    r = np.where(v >= 0, r - (1 << 23) + 128, -r + (1 << 23) + 127)
    return (r >> 8).astype(np.int16)


def cell_scale_power(scale: float) -> int:
    """CheckedLog2 as TFLite Micro uses it: round(logf(s) * (1 / logf(2))) in float; a scale that is not a power
    of two still gets the nearest power (TFLite Micro ignores the check's result)."""
    log2 = f32(f32(math.log(f32(scale))) * f32(1.0 / f32(math.log(2.0))))
    return round_half_away(log2)


def tanh_params(power: int) -> tuple[int, int] | None:
    """(M, s) of the cell-state tanh (module docstring); None where x * M could overflow int32 or the shift
    leaves int32 (a cell scale above 4 or below 2^-42)."""
    left = 15 + power - 3
    if left >= 0:
        return (3 << left, 0) if left <= 14 else None
    return (3, -left) if -left <= 30 else None


def mul_scale(a: float, b: float, out: float) -> float:
    """CreateInterGateMulParams: double(a) * double(b) / double(out), from float scales."""
    return float(np.float32(a)) * float(np.float32(b)) / float(np.float32(out))


def quantized_cell_clip(clip: float, cell_scale: float) -> int:
    """int16(min(max(clip / cell_scale, -32768), 32767)) in double, truncated as static_cast does."""
    value = min(max(float(np.float32(clip)) / float(np.float32(cell_scale)), -32768.0), 32767.0)
    return int(value)
