"""signal.window: TFLite Micro's SignalWindow (signal/src/window.cc), the audio front end's Hann window.

int16 only: out = clamp_int16((x * w) >> shift), the product in int32 and the shift arithmetic (floor).
The 1-D window w is applied to each consecutive run of len(w) input elements, so the input's size must be
a multiple of it (TFLite Micro would read past the window otherwise). shift is the window's Q format.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType
from ._common import fail
from ._signal import expect, expect_output


@register
class SignalWindow(OpDef):
    name = "signal.window"
    attrs = {"shift": Attr(int)}
    num_inputs = (2, 2)
    dtypes = (DType.INT16,)

    def infer(self, graph, node):
        x = expect(graph, node, 0, DType.INT16)
        return [expect_output(graph, node, 0, DType.INT16, x.shape)]

    def prepare(self, graph, node):
        x = expect(graph, node, 0, DType.INT16)
        w = expect(graph, node, 1, DType.INT16, rank=1, what="window")
        shift = int(node.attrs["shift"])
        if not 0 <= shift <= 31:
            fail(graph, node, f"shift {shift} is outside [0, 31]")
        if x.rank < 1 or w.shape[0] < 1 or x.size % w.shape[0]:
            fail(graph, node, f"input shape {list(x.shape)} is not a whole number of {w.shape[0]}-sample windows")
        return {"size": x.size, "window_size": w.shape[0], "shift": shift}

    def reference(self, graph, node, p, inputs):
        x, w = inputs
        frames = x.astype(np.int64).reshape(-1, p["window_size"])
        out = (frames * w.astype(np.int64)) >> p["shift"]
        return [np.clip(out, -32768, 32767).astype(np.int16).reshape(x.shape)]

    def macs(self, graph, node):
        return graph.type_of(node.inputs[0]).size
