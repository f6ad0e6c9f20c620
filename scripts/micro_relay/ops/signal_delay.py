"""signal.delay: TFLite Micro's SignalDelay (signal/micro/kernels/delay.cc), which delays each row of int16
samples by `delay_length` samples across invokes.

TFLite Micro keeps, per row (every index of the outer dimensions), a circular buffer that starts with
`delay_length` zeros; each invoke writes the row's `frame` new samples, reads the oldest `frame` and discards
them. Here the buffer is a state tensor [rows, delay_length] (zeros at start and on reset): with
c = concat(state, x) along the row, out = c[:frame] and the new state = c[frame:]. A delay of 0 is the
identity; the frontend writes it as a copy and makes no state.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import DType
from ._common import fail
from ._signal import expect, expect_output


def rows_and_frame(graph, node, x) -> tuple[int, int]:
    """(outer rows, innermost length) of an input the streaming signal ops walk row by row."""
    if x.rank < 1 or x.shape[-1] < 1:
        fail(graph, node, f"input shape {list(x.shape)} has no samples")
    return x.size // x.shape[-1], x.shape[-1]


@register
class SignalDelay(OpDef):
    name = "signal.delay"
    num_inputs = (2, 2)
    dtypes = (DType.INT16,)

    def infer(self, graph, node):
        x = expect(graph, node, 0, DType.INT16)
        state = expect(graph, node, 1, DType.INT16, rank=2, what="delay state")
        return [expect_output(graph, node, 0, DType.INT16, x.shape),
                expect_output(graph, node, 1, DType.INT16, state.shape)]

    def prepare(self, graph, node):
        x = expect(graph, node, 0, DType.INT16)
        state = expect(graph, node, 1, DType.INT16, rank=2, what="delay state")
        rows, frame = rows_and_frame(graph, node, x)
        if state.shape[0] != rows or state.shape[1] < 1:
            fail(graph, node, f"delay state {list(state.shape)} does not hold {rows} rows of delayed samples")
        return {"rows": rows, "frame": frame, "delay": state.shape[1]}

    def reference(self, graph, node, p, inputs):
        x, state = inputs
        joined = np.concatenate([state, x.reshape(p["rows"], p["frame"])], axis=1)
        return [joined[:, :p["frame"]].reshape(x.shape).copy(), joined[:, p["frame"]:].copy()]
