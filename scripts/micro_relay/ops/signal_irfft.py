"""signal.irfft: TFLite Micro's SignalIrfft (signal/src/irfft_int16.cc, irfft_int32.cc, irfft_float.cc):
KissFFT's inverse real FFT, kiss_fftri (ops/_signal_fft.py), int16 (Q15), int32 (Q31) and float32.

Each row of the last axis (fft_length / 2 + 1 interleaved (real, imag) bins, so fft_length + 2 values) becomes
fft_length samples. The integer builds halve at every butterfly as the forward one does; TFLite Micro's float
kernel divides KissFFT's unscaled float result by fft_length (one IEEE division per sample).
TFLite Micro's kernel writes fft_length samples per row whatever the output's last axis says, so any other
output length is refused, as is a row that does not hold exactly the bins it reads.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, types
from ._signal_fft import irfft_kiss, kernel_tables, stages
from .signal_rfft import BITS, MAX_FFT


def _check(graph, node) -> tuple[TensorType, int]:
    x = types(graph, node)[0]
    n = int(node.attrs["fft_length"])
    if x.dtype not in BITS:
        fail(graph, node, f"input must be int16, int32 or float32, got {x.dtype.value}")
    if not 4 <= n <= MAX_FFT or n & (n - 1):
        fail(graph, node, f"fft_length {n} is not a power of two in [4, {MAX_FFT}]")
    if x.rank < 1 or x.shape[-1] != n + 2:
        fail(graph, node, f"rows of {x.shape[-1] if x.rank else 0} values are not the {n // 2 + 1} "
                          f"(real, imag) bins of fft_length {n}")
    return x, n


@register
class SignalIrfft(OpDef):
    name = "signal.irfft"
    attrs = {"fft_length": Attr(int)}
    dtypes = (DType.INT16, DType.INT32, DType.FLOAT32)

    def infer(self, graph, node):
        x, n = _check(graph, node)
        return [TensorType(x.shape[:-1] + (n,), x.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        x, n = _check(graph, node)
        bits = BITS[x.dtype]
        if any(p not in (2, 4) for p, _ in stages(n // 2)):
            fail(graph, node, f"fft_length {n} needs a radix other than 2 and 4")
        return {"bits": bits, "fft_length": n, "n": n // 2, "input_length": 0, "frames": x.size // x.shape[-1],
                **kernel_tables(n, bits, inverse=True)}

    def reference(self, graph, node, p, inputs):
        (x,) = inputs
        rows = x.reshape(-1, p["fft_length"] + 2)
        out = irfft_kiss(rows, p["fft_length"], p["bits"])
        if p["bits"] == 0:
            out = (out / np.float32(p["fft_length"])).astype(np.float32)
        return [out.astype(x.dtype).reshape(x.shape[:-1] + (p["fft_length"],))]

    def macs(self, graph, node):
        n = int(node.attrs["fft_length"])
        x = types(graph, node)[0]
        return (x.size // max(x.shape[-1], 1)) * 2 * n * max(n.bit_length() - 2, 1)
