"""signal.overlap_add: TFLite Micro's SignalOverlapAdd (signal/micro/kernels/overlap_add.cc and
signal/src/overlap_add.cc), the inverse of framing: each frame of `frame` samples is added into a running
buffer, whose first `step` samples are then output and shifted out.

Per row of frames and per frame: buffer += x (int16: each sum saturated to int16; float32: one IEEE add);
out = buffer[:step]; buffer = buffer[step:] followed by `step` zeros. TFLite Micro keeps the buffer per row in
a persistent buffer zeroed at allocation and on reset: here a state tensor [rows, frame]. Input
[..., frames, frame], output [..., frames * step].
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType
from ._common import fail, types
from ._signal import expect, expect_output

TYPES = (DType.INT16, DType.FLOAT32)


def _input(graph, node):
    x = types(graph, node)[0]
    if x is None or x.dtype not in TYPES:
        fail(graph, node, f"input must be int16 or float32, got {x.dtype.value if x else 'nothing'}")
    if x.rank < 2 or x.shape[-1] < 1 or x.shape[-2] < 1:
        fail(graph, node, f"input must be [..., frames, frame] with samples, got shape {list(x.shape)}")
    return x


@register
class SignalOverlapAdd(OpDef):
    name = "signal.overlap_add"
    attrs = {"frame_step": Attr(int)}
    num_inputs = (2, 2)
    dtypes = TYPES

    def infer(self, graph, node):
        x = _input(graph, node)
        step = int(node.attrs["frame_step"])
        state = expect(graph, node, 1, x.dtype, rank=2, what="overlap state")
        out = (*x.shape[:-2], x.shape[-2] * step)
        return [expect_output(graph, node, 0, x.dtype, out), expect_output(graph, node, 1, x.dtype, state.shape)]

    def prepare(self, graph, node):
        x = _input(graph, node)
        step, frame = int(node.attrs["frame_step"]), x.shape[-1]
        if not 1 <= step <= frame:
            fail(graph, node, f"frame_step {step} is outside [1, {frame}] (the frame length)")
        rows = x.size // (frame * x.shape[-2])
        state = expect(graph, node, 1, x.dtype, rank=2, what="overlap state")
        if state.shape != (rows, frame):
            fail(graph, node, f"overlap state {list(state.shape)} must be [{rows}, {frame}]")
        return {"rows": rows, "frames": x.shape[-2], "frame": frame, "step": step,
                "kind": "s16" if x.dtype is DType.INT16 else "f32"}

    def reference(self, graph, node, p, inputs):
        x, state = inputs
        buffer = state.copy()
        frames = x.reshape(p["rows"], p["frames"], p["frame"])
        step, out = p["step"], []
        for f in range(p["frames"]):
            if x.dtype == np.int16:
                buffer = np.clip(buffer.astype(np.int32) + frames[:, f], -32768, 32767).astype(np.int16)
            else:
                buffer = (buffer + frames[:, f]).astype(np.float32)
            out.append(buffer[:, :step].copy())
            buffer = np.concatenate([buffer[:, step:], np.zeros((p["rows"], step), buffer.dtype)], axis=1)
        y = np.concatenate(out, axis=1).reshape(graph.type_of(node.outputs[0]).shape)
        return [y, buffer]

    def macs(self, graph, node):
        return graph.type_of(node.inputs[0]).size
