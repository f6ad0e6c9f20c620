"""signal.stacker: TFLite Micro's SignalStacker (signal/micro/kernels/stacker.cc), which stacks the last
left + 1 + right frames of `channels` int16 values into one output, once every `step` invokes.

TFLite Micro keeps a circular buffer of channels * (left + right + 1) values that starts empty. Each invoke
appends the input frame; on the first invoke after allocation or reset it then repeats that first frame
`left` more times. When the buffer is full, it is the output (oldest first), the oldest step frames are
dropped and the bool output says valid; otherwise valid is false. TFLite Micro leaves an invalid output as
it was; here it is zeros.

Here the buffer is two state tensors: the held values [channels * (left + right + 1)], oldest first, and
int32 [2]: how many are held, and whether the first frame has come.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType
from ._common import fail
from ._signal import expect, expect_output

OPTIONS = ("channels", "left", "right", "step")


@register
class SignalStacker(OpDef):
    name = "signal.stacker"
    attrs = {k: Attr(int) for k in OPTIONS}
    num_inputs = (3, 3)
    dtypes = (DType.INT16,)

    def _options(self, graph, node) -> dict:
        o = {k: int(node.attrs[k]) for k in OPTIONS}
        if not 1 <= o["channels"] <= 2 ** 16 or not 0 <= o["left"] <= 2 ** 10 or not 0 <= o["right"] <= 2 ** 10:
            fail(graph, node, f"num_channels {o['channels']} must be in [1, 65536], the left and right contexts "
                              f"{o['left']}, {o['right']} in [0, 1024]")
        span = o["left"] + o["right"] + 1
        if not 1 <= o["step"] <= span:
            fail(graph, node, f"stacker_step {o['step']} is outside [1, {span}] (the stacked frames)")
        return {**o, "size": o["channels"] * span}

    def infer(self, graph, node):
        o = self._options(graph, node)
        expect(graph, node, 0, DType.INT16, rank=1)
        return [expect_output(graph, node, 0, DType.INT16, (o["size"],)),
                expect_output(graph, node, 1, DType.BOOL, ()),
                expect_output(graph, node, 2, DType.INT16, (o["size"],)),
                expect_output(graph, node, 3, DType.INT32, (2,))]

    def prepare(self, graph, node):
        o = self._options(graph, node)
        x = expect(graph, node, 0, DType.INT16, rank=1)
        if x.shape[0] != o["channels"]:
            fail(graph, node, f"input [{x.shape[0]}] must hold num_channels = {o['channels']} values")
        if expect(graph, node, 1, DType.INT16, rank=1, what="stacker state").shape != (o["size"],):
            fail(graph, node, f"stacker state must be int16 [{o['size']}]")
        if expect(graph, node, 2, DType.INT32, rank=1, what="stacker count").shape != (2,):
            fail(graph, node, "stacker count must be int32 [2]")
        return o

    def reference(self, graph, node, p, inputs):
        x, held, flags = inputs
        held, n, first = held.copy(), int(flags[0]), int(flags[1])
        ch = p["channels"]
        held[n:n + ch] = x
        n += ch
        if not first:
            for _ in range(p["left"]):
                held[n:n + ch] = x
                n += ch
            first = 1
        out = np.zeros(p["size"], np.int16)
        valid = n >= p["size"]
        if valid:
            out[:] = held
            drop = p["step"] * ch
            held[:n - drop] = held[drop:n].copy()
            n -= drop
        return [out, np.array(valid), held, np.array([n, first], np.int32)]
