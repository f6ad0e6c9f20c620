"""signal.pcan: TFLite Micro's SignalPCAN (signal/src/pcan_argc_fixed.cc), per-channel automatic gain control.

For each channel: gain = WideDynamicFunction(noise, lut) (a piecewise quadratic read from the int16 gain
table at 4 * msb(noise) - 6; noise <= 2 reads lut[noise]), converted int16 -> uint32 as the C does (a negative
gain wraps); snr = (x * gain) >> snr_shift in uint64, kept as uint32; out = shrink(snr) in Q6 from Q12:
snr^2 >> 20 below 2.0, else (snr >> 6) - 64. The table must hold the 125 entries the largest noise reads.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType
from ._common import fail
from ._signal import expect, expect_output, msb32

LUT_SIZE = 4 * 32 - 3  # the entries a noise of 32 significant bits reads


def wide_dynamic(noise: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """WideDynamicFunction as int64 values of its int16 result."""
    x = noise.astype(np.int64)
    interval = msb32(x)
    base = np.where(x <= 2, 0, 4 * interval - 6)
    frac = np.where(interval < 11, (x << np.maximum(11 - interval, 0)) & 0xFFFFFFFF,
                    x >> np.maximum(interval - 11, 0)) & 0x3FF
    lut = lut.astype(np.int64)
    result = ((lut[np.minimum(base + 2, len(lut) - 1)] * frac) >> 5) + lut[np.minimum(base + 1, len(lut) - 1)] * 32
    result = ((result * frac + (1 << 14)) >> 15) + lut[base]
    result = ((result + 32768) % 65536) - 32768
    return np.where(x <= 2, lut[np.minimum(x, 2)], result)


@register
class SignalPcan(OpDef):
    name = "signal.pcan"
    attrs = {"snr_shift": Attr(int)}
    num_inputs = (3, 3)
    dtypes = (DType.UINT32,)

    def infer(self, graph, node):
        x = expect(graph, node, 0, DType.UINT32, rank=1)
        return [expect_output(graph, node, 0, DType.UINT32, x.shape)]

    def prepare(self, graph, node):
        x = expect(graph, node, 0, DType.UINT32, rank=1)
        noise = expect(graph, node, 1, DType.UINT32, rank=1, what="noise estimate")
        lut = expect(graph, node, 2, DType.INT16, rank=1, what="gain table")
        shift = int(node.attrs["snr_shift"])
        if noise.shape != x.shape or x.size < 1:
            fail(graph, node, f"noise estimate {list(noise.shape)} and input {list(x.shape)} differ or are empty")
        if lut.size < LUT_SIZE:
            fail(graph, node, f"gain table has {lut.size} entries, the largest noise reads {LUT_SIZE}")
        if not 0 <= shift <= 63:
            fail(graph, node, f"snr_shift {shift} is outside [0, 63]")
        return {"size": x.size, "snr_shift": shift}

    def reference(self, graph, node, p, inputs):
        x, noise, lut = inputs
        gain = (wide_dynamic(noise, lut) & 0xFFFFFFFF).astype(np.uint64)
        with np.errstate(over="ignore"):
            snr = ((x.astype(np.uint64) * gain) >> np.uint64(p["snr_shift"])) & np.uint64(0xFFFFFFFF)
            small = (snr * snr) >> np.uint64(20)
            big = (snr >> np.uint64(6)) - np.uint64(64)
        return [np.where(snr < 8192, small, big).astype(np.uint32)]
