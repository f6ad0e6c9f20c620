"""signal.filter_bank_square_root: TFLite Micro's SignalFilterBankSquareRoot (signal/src/square_root_*.cc).

out = Sqrt64(x) >> scale_bits for uint64 channels x and the int32 scalar scale_bits (fft_auto_scale's shift,
a runtime input). Sqrt64 is a bitwise integer square root rounded to nearest; below 2^32 it is Sqrt32, whose
uint16 result stops at 65535. scale_bits outside [0, 31] (a shift TFLite Micro leaves undefined) gives 0 here.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import DType
from ._signal import expect, expect_output


def _isqrt(num: int, top: int) -> int:
    """The bit-by-bit root of TFLite Micro's Sqrt32/Sqrt64 (top 32 or 64 bits) with its rounding step."""
    if num == 0:
        return 0
    start = (top - num.bit_length()) | 1
    bit, res = 1 << (top - 1 - start), 0
    for _ in range((top - 1 - start) // 2 + 1):
        if num >= res + bit:
            num -= res + bit
            res = (res >> 1) + bit
        else:
            res >>= 1
        bit >>= 2
    if num > res and res != (1 << (top // 2)) - 1:
        res += 1
    return res


def sqrt64(x: int) -> int:
    return _isqrt(x, 32) if x >> 32 == 0 else _isqrt(x, 64)


@register
class SignalFilterBankSquareRoot(OpDef):
    name = "signal.filter_bank_square_root"
    num_inputs = (2, 2)
    dtypes = (DType.UINT64,)

    def infer(self, graph, node):
        x = expect(graph, node, 0, DType.UINT64, rank=1)
        expect(graph, node, 1, DType.INT32, rank=0, what="scale_bits")
        return [expect_output(graph, node, 0, DType.UINT32, x.shape)]

    def prepare(self, graph, node):
        return {"size": expect(graph, node, 0, DType.UINT64, rank=1).size}

    def reference(self, graph, node, p, inputs):
        x, bits = inputs
        bits = int(np.asarray(bits).reshape(()))
        if not 0 <= bits <= 31:
            return [np.zeros(p["size"], dtype=np.uint32)]
        return [np.array([sqrt64(int(v)) >> bits for v in x.tolist()], dtype=np.uint32)]
