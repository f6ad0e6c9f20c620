"""signal.spectral_subtraction: TFLite Micro's SignalFilterBankSpectralSubtraction
(signal/src/filter_bank_spectral_subtraction.cc), which keeps a per-channel noise estimate between invokes.

Inputs: the channels and the noise estimate state (a state tensor the frontend adds: TFLite Micro keeps it in a
persistent buffer, zero at allocation and on reset). Outputs: the channels with the noise subtracted and the
new estimate, which an assign stores into the state. Per channel i, with (smoothing, one_minus) the even or
the alternate (odd-channel) pair, s = smoothing_bits and b = spectral_subtraction_bits:
    up = x << s (uint32);  noise = (up * smoothing + noise * one_minus) >> b  (uint64 sums, wrapping; kept uint32)
    est = min(noise, up), and noise = est too when clamping
    out = max((up - est) >> s, (x * min_signal_remaining) >> b)
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType
from ._common import fail
from ._signal import expect, expect_output

COEFFICIENTS = ("smoothing", "one_minus_smoothing", "alternate_smoothing", "alternate_one_minus_smoothing",
                "min_signal_remaining")


@register
class SignalSpectralSubtraction(OpDef):
    name = "signal.spectral_subtraction"
    attrs = {**{k: Attr(int) for k in COEFFICIENTS}, "smoothing_bits": Attr(int),
             "spectral_subtraction_bits": Attr(int), "clamping": Attr(bool)}
    num_inputs = (2, 2)
    dtypes = (DType.UINT32,)

    def infer(self, graph, node):
        x = expect(graph, node, 0, DType.UINT32, rank=1)
        return [expect_output(graph, node, k, DType.UINT32, x.shape) for k in (0, 1)]

    def prepare(self, graph, node):
        x = expect(graph, node, 0, DType.UINT32, rank=1)
        state = expect(graph, node, 1, DType.UINT32, rank=1, what="noise estimate state")
        if state.shape != x.shape:
            fail(graph, node, f"noise estimate {list(state.shape)} and input {list(x.shape)} differ")
        a = node.attrs
        if not 0 <= int(a["smoothing_bits"]) <= 31:
            fail(graph, node, f"smoothing_bits {a['smoothing_bits']} is outside [0, 31]")
        if not 0 <= int(a["spectral_subtraction_bits"]) <= 63:
            fail(graph, node, f"spectral_subtraction_bits {a['spectral_subtraction_bits']} is outside [0, 63]")
        return {"size": x.size, **{k: int(a[k]) & 0xFFFFFFFF for k in COEFFICIENTS},
                "smoothing_bits": int(a["smoothing_bits"]), "bits": int(a["spectral_subtraction_bits"]),
                "clamping": int(bool(a["clamping"]))}

    def reference(self, graph, node, p, inputs):
        x, noise = (v.astype(np.uint64) for v in inputs)
        odd = (np.arange(p["size"]) & 1).astype(bool)
        u64 = np.uint64
        smoothing = np.where(odd, u64(p["alternate_smoothing"]), u64(p["smoothing"]))
        one_minus = np.where(odd, u64(p["alternate_one_minus_smoothing"]), u64(p["one_minus_smoothing"]))
        s, b = u64(p["smoothing_bits"]), u64(p["bits"])
        with np.errstate(over="ignore"):
            up = (x << s) & u64(0xFFFFFFFF)
            new = ((up * smoothing + noise * one_minus) >> b) & u64(0xFFFFFFFF)
            est = np.minimum(new, up)
            if p["clamping"]:
                new = est
            floor = ((x * u64(p["min_signal_remaining"])) >> b) & u64(0xFFFFFFFF)
        out = np.maximum((up - est) >> s, floor)
        return [out.astype(np.uint32), new.astype(np.uint32)]
