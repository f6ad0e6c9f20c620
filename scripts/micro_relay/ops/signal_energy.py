"""signal.energy: TFLite Micro's SignalEnergy (signal/src/energy.cc), the power spectrum of an int16 FFT.

The input is interleaved (real, imag) int16 pairs; out[i] = real^2 + imag^2 as uint32 for i in
[start_index, end_index). TFLite Micro leaves the other outputs as the arena held them; we write 0 there
(nothing downstream reads them: the filter bank starts at its first channel's bin). The sum of two squares
reaches 2^31 only for (-32768, -32768), which TFLite Micro's int32 sum wraps to 2^31 as uint32: so do we.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType
from ._common import fail
from ._signal import expect


def _bins(graph, node) -> int:
    x = expect(graph, node, 0, DType.INT16, rank=1)
    if x.shape[0] % 2:
        fail(graph, node, f"input length {x.shape[0]} is not a whole number of (real, imag) pairs")
    return x.shape[0] // 2


@register
class SignalEnergy(OpDef):
    name = "signal.energy"
    attrs = {"start_index": Attr(int), "end_index": Attr(int)}
    dtypes = (DType.INT16,)

    def infer(self, graph, node):
        out = graph.type_of(node.outputs[0])
        if out.dtype != DType.UINT32 or out.rank != 1:
            fail(graph, node, f"output must be 1-D uint32, got {out.dtype.value} {list(out.shape)}")
        return [out]

    def prepare(self, graph, node):
        bins = _bins(graph, node)
        size = graph.type_of(node.outputs[0]).shape[0]
        start, end = int(node.attrs["start_index"]), int(node.attrs["end_index"])
        if not 0 <= start <= end <= min(bins, size):
            fail(graph, node, f"bins [{start}, {end}) are outside the {bins} input bins or the {size} outputs")
        return {"start": start, "end": end, "size": size}

    def reference(self, graph, node, p, inputs):
        pairs = inputs[0].astype(np.int64).reshape(-1, 2)[p["start"]:p["end"]]
        out = np.zeros(p["size"], dtype=np.uint32)
        out[p["start"]:p["end"]] = ((pairs ** 2).sum(axis=1) & 0xFFFFFFFF).astype(np.uint32)
        return [out]

    def macs(self, graph, node):
        return 2 * graph.type_of(node.outputs[0]).size
