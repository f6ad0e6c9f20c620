"""signal.framer: TFLite Micro's SignalFramer (signal/micro/kernels/framer.cc), which cuts each row of a
stream of int16 samples into overlapping frames of `frame_size`, one every `frame_step` samples, across invokes.

Per row, TFLite Micro keeps a circular buffer of ceil(frame_size / frame_step) * frame_step samples that starts
empty, or holding frame_size - frame_step zeros with `prefill`. Each invoke walks the row's innermost
dimension in chunks of frame_step: the chunk is appended; when frame_size samples are held, the oldest
frame_size are the frame's output and the oldest frame_step are dropped; otherwise that frame is not valid.
The scalar bool output is whether every frame of the invoke was valid. TFLite Micro leaves an invalid frame's
output as it was; here it is zeros.

Here the buffer is two state tensors: the held samples [rows, capacity], oldest first, and how many are held
(int32 [1]; every row holds the same count).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType
from ._common import fail
from ._signal import expect, expect_output
from .signal_delay import rows_and_frame


def capacity(frame_size: int, frame_step: int) -> int:
    """The samples TFLite Micro's Prepare gives each row's circular buffer."""
    return -(-frame_size // frame_step) * frame_step


@register
class SignalFramer(OpDef):
    name = "signal.framer"
    attrs = {"frame_size": Attr(int), "frame_step": Attr(int)}
    num_inputs = (3, 3)
    dtypes = (DType.INT16,)

    def _sizes(self, graph, node) -> tuple[int, int]:
        size, step = int(node.attrs["frame_size"]), int(node.attrs["frame_step"])
        if not 1 <= size <= 2 ** 20 or not 1 <= step <= 2 ** 20:
            fail(graph, node, f"frame_size {size} and frame_step {step} must be in [1, 2^20]")
        return size, step

    def infer(self, graph, node):
        x = expect(graph, node, 0, DType.INT16)
        size, step = self._sizes(graph, node)
        _, length = rows_and_frame(graph, node, x)
        samples = expect(graph, node, 1, DType.INT16, rank=2, what="framer state")
        count = expect(graph, node, 2, DType.INT32, rank=1, what="framer count")
        return [expect_output(graph, node, 0, DType.INT16, (*x.shape[:-1], max(length // step, 1), size)),
                expect_output(graph, node, 1, DType.BOOL, ()),
                expect_output(graph, node, 2, DType.INT16, samples.shape),
                expect_output(graph, node, 3, DType.INT32, count.shape)]

    def prepare(self, graph, node):
        x = expect(graph, node, 0, DType.INT16)
        size, step = self._sizes(graph, node)
        rows, length = rows_and_frame(graph, node, x)
        if length % step:
            fail(graph, node, f"the innermost dimension {length} is not a whole number of {step}-sample steps")
        held = capacity(size, step)
        samples = expect(graph, node, 1, DType.INT16, rank=2, what="framer state")
        if samples.shape != (rows, held):
            fail(graph, node, f"framer state {list(samples.shape)} must be [{rows}, {held}]")
        if expect(graph, node, 2, DType.INT32, rank=1, what="framer count").shape != (1,):
            fail(graph, node, "framer count must be int32 [1]")
        return {"rows": rows, "frames": length // step, "size": size, "step": step, "capacity": held}

    def reference(self, graph, node, p, inputs):
        x, samples, count = inputs
        held, start = samples.copy(), int(count[0])
        chunks = x.reshape(p["rows"], p["frames"], p["step"])
        out = np.zeros((p["rows"], p["frames"], p["size"]), np.int16)
        valid, n = True, start
        for r in range(p["rows"]):
            n = start
            for f in range(p["frames"]):
                held[r, n:n + p["step"]] = chunks[r, f]
                n += p["step"]
                if n >= p["size"]:
                    out[r, f] = held[r, :p["size"]]
                    held[r, :n - p["step"]] = held[r, p["step"]:n].copy()
                    n -= p["step"]
                else:
                    valid = False
        return [out.reshape(graph.type_of(node.outputs[0]).shape), np.array(valid), held,
                np.array([n], np.int32)]
