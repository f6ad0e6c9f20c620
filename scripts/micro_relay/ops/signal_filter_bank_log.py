"""signal.filter_bank_log: TFLite Micro's SignalFilterBankLog (signal/src/filter_bank_log.cc).

Each uint32 channel is shifted left by input_correction_bits (wrapping in uint32), then
out = min(Log32(v, output_scale), 32767) for v > 1 and 0 otherwise (ops/_signal_log.py): the micro_speech
front end's 40 log-mel features (output_scale 1600, correction bits 3 for its 12-bit filter bank).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType
from ._common import fail
from ._signal import expect, expect_output
from ._signal_log import log32


@register
class SignalFilterBankLog(OpDef):
    name = "signal.filter_bank_log"
    attrs = {"output_scale": Attr(int), "input_correction_bits": Attr(int)}
    dtypes = (DType.UINT32,)

    def infer(self, graph, node):
        x = expect(graph, node, 0, DType.UINT32, rank=1)
        return [expect_output(graph, node, 0, DType.INT16, x.shape)]

    def prepare(self, graph, node):
        x = expect(graph, node, 0, DType.UINT32, rank=1)
        bits, scale = int(node.attrs["input_correction_bits"]), int(node.attrs["output_scale"])
        if not 0 <= bits <= 31:
            fail(graph, node, f"input_correction_bits {bits} is outside [0, 31]")
        if not -2 ** 31 <= scale < 2 ** 31:
            fail(graph, node, f"output_scale {scale} is not an int32")
        return {"size": x.size, "correction_bits": bits, "scale": scale}

    def reference(self, graph, node, p, inputs):
        v = (inputs[0].astype(np.int64) << p["correction_bits"]) & 0xFFFFFFFF
        safe = np.where(v > 1, v, 2)
        out = np.where(v > 1, np.minimum(log32(safe, p["scale"]), 32767), 0)
        return [out.astype(np.int16)]
