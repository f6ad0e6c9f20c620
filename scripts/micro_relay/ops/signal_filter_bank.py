"""signal.filter_bank: TFLite Micro's SignalFilterBank (signal/src/filter_bank.cc), the mel filter bank.

Channel c in 0..num_channels (one more than the outputs: channel 0 only carries the unweights of the first
real channel) sums spectrum[start_c + j] * weights[wstart_c + j] for j < width_c, plus the previous channel's
sum with unweights; output c - 1 is channel c's total. Products and sums are uint64 with wrap (an int16
weight converts to uint64 first, so a negative one wraps), as TFLite Micro computes them.
The five config inputs (weights, unweights, channel frequency starts, weight starts, widths: int16 1-D)
must be constants: their index ranges are checked here once, where TFLite Micro would read past its tensors.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType
from ._common import fail
from ._signal import expect, expect_output

_CONFIG = ("weights", "unweights", "channel frequency starts", "channel weight starts", "channel widths")


def _config(graph, node) -> list[np.ndarray]:
    arrays = []
    for index, what in enumerate(_CONFIG, start=1):
        expect(graph, node, index, DType.INT16, rank=1, what=what)
        data = graph.tensors[node.inputs[index]].data
        if data is None:
            fail(graph, node, f"{what} must be a constant tensor")
        arrays.append(data.astype(np.int64))
    return arrays


@register
class SignalFilterBank(OpDef):
    name = "signal.filter_bank"
    attrs = {"num_channels": Attr(int)}
    num_inputs = (6, 6)
    dtypes = (DType.UINT32,)

    def infer(self, graph, node):
        expect(graph, node, 0, DType.UINT32, rank=1)
        return [expect_output(graph, node, 0, DType.UINT64, (int(node.attrs["num_channels"]),))]

    def prepare(self, graph, node):
        bins = expect(graph, node, 0, DType.UINT32, rank=1).shape[0]
        weights, unweights, freq, wstart, width = _config(graph, node)
        channels = int(node.attrs["num_channels"]) + 1
        if channels < 2 or min(len(freq), len(wstart), len(width)) < channels:
            fail(graph, node, f"num_channels {channels - 1} needs {channels} channel starts and widths")
        freq, wstart, width = freq[:channels], wstart[:channels], width[:channels]
        if (width < 0).any() or (freq < 0).any() or (wstart < 0).any():
            fail(graph, node, "a channel start or width is negative")
        if (freq + width > bins).any():
            fail(graph, node, f"a channel reads past the {bins} spectrum bins")
        if (wstart + width > min(len(weights), len(unweights))).any():
            fail(graph, node, f"a channel reads past the {min(len(weights), len(unweights))} weights")
        return {"channels": channels, "size": int(width.sum())}

    def reference(self, graph, node, p, inputs):
        spectrum = inputs[0].astype(np.uint64)
        weights, unweights, freq, wstart, width = (a.astype(np.int64) for a in inputs[1:])
        out, carry = [], np.uint64(0)
        with np.errstate(over="ignore"):
            for c in range(p["channels"]):
                bins = spectrum[freq[c]:freq[c] + width[c]]
                taps = slice(wstart[c], wstart[c] + width[c])
                total = carry + (weights[taps].astype(np.uint64) * bins).sum(dtype=np.uint64)
                carry = (unweights[taps].astype(np.uint64) * bins).sum(dtype=np.uint64)
                out.append(total)
        return [np.array(out[1:], dtype=np.uint64)]

    def macs(self, graph, node):
        return 2 * int(graph.tensors[node.inputs[5]].data.astype(np.int64).sum())
