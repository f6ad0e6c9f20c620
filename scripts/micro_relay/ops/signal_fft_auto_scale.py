"""signal.fft_auto_scale: TFLite Micro's SignalFftAutoScale (signal/src/fft_auto_scale.cc).

Shifts an int16 frame left by as many bits as its largest magnitude leaves free, so the fixed-point FFT
keeps its precision, and outputs that shift (int32 scalar) for the filter bank's square root to undo:
    m = MaxAbs16(x);  s = max(0, 15 - msb32(m));  out = int16(x * 2^s)
MaxAbs16 keeps its running maximum as int16, so -32768 wraps to itself and the next sample replaces it
(ops/_signal.py), and msb32(0) is 32 (GCC's builtin path): an all-zero frame or such a wrapped maximum
gives s = 0. The product is truncated to int16, which only wraps after that -32768 quirk.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import DType
from ._signal import expect, expect_output, max_abs16, msb32


@register
class SignalFftAutoScale(OpDef):
    name = "signal.fft_auto_scale"
    dtypes = (DType.INT16,)

    def infer(self, graph, node):
        x = expect(graph, node, 0, DType.INT16, rank=1)
        return [expect_output(graph, node, 0, DType.INT16, x.shape), expect_output(graph, node, 1, DType.INT32, ())]

    def prepare(self, graph, node):
        return {"size": expect(graph, node, 0, DType.INT16, rank=1).size}

    def reference(self, graph, node, p, inputs):
        (x,) = inputs
        best = max_abs16(x)
        shift = max(0, 15 - int(msb32(np.array(best & 0xFFFFFFFF))))
        out = ((x.astype(np.int64) << shift) + 32768) % 65536 - 32768
        return [out.astype(np.int16), np.array(shift, dtype=np.int32)]
