"""signal.rfft: TFLite Micro's SignalRfft (signal/src/rfft_int16.cc, rfft_int32.cc): KissFFT's fixed-point
real FFT (ops/_signal_fft.py), int16 (Q15) and int32 (Q31).

Each row of the last axis (input_length samples) is zero-padded to fft_length and transformed into
fft_length / 2 + 1 interleaved (real, imag) bins, so the output's last axis is fft_length + 2. fft_length must
be a power of two from 4 to 32768 (KissFFT's radix-4 and radix-2 butterflies; its generic radix allocates).
float32 runs KissFFT's float build in the same order of operations: float32 twiddles of the same phases.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, types
from ._signal_fft import kernel_tables, rfft_kiss, stages

MAX_FFT = 32768
BITS = {DType.INT16: 16, DType.INT32: 32, DType.FLOAT32: 0}  # 0: the float build


def _check(graph, node) -> tuple[TensorType, int]:
    x = types(graph, node)[0]
    n = int(node.attrs["fft_length"])
    if x.dtype not in BITS:
        fail(graph, node, f"input must be int16, int32 or float32, got {x.dtype.value}")
    if x.rank < 1:
        fail(graph, node, "input must have at least one axis")
    if not 4 <= n <= MAX_FFT or n & (n - 1):
        fail(graph, node, f"fft_length {n} is not a power of two in [4, {MAX_FFT}]")
    if x.shape[-1] > n:
        fail(graph, node, f"frames of {x.shape[-1]} samples are longer than fft_length {n}")
    return x, n


@register
class SignalRfft(OpDef):
    name = "signal.rfft"
    attrs = {"fft_length": Attr(int)}
    dtypes = (DType.INT16, DType.INT32, DType.FLOAT32)

    def infer(self, graph, node):
        x, n = _check(graph, node)
        return [TensorType(x.shape[:-1] + (n + 2,), x.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        x, n = _check(graph, node)
        bits = BITS[x.dtype]
        if any(p not in (2, 4) for p, _ in stages(n // 2)):
            fail(graph, node, f"fft_length {n} needs a radix other than 2 and 4")
        return {"bits": bits, "fft_length": n, "n": n // 2, "input_length": x.shape[-1],
                "frames": x.size // x.shape[-1] if x.shape[-1] else 0, **kernel_tables(n, bits)}

    def reference(self, graph, node, p, inputs):
        (x,) = inputs
        rows = x.astype(np.float32 if p["bits"] == 0 else np.int64).reshape(-1, p["input_length"])
        out = rfft_kiss(rows, p["fft_length"], p["bits"])
        return [out.astype(x.dtype).reshape(x.shape[:-1] + (p["fft_length"] + 2,))]

    def macs(self, graph, node):
        n = int(node.attrs["fft_length"])
        x = types(graph, node)[0]
        return (x.size // max(x.shape[-1], 1)) * 2 * n * max(n.bit_length() - 2, 1)
