"""power: TFLite POW, out = powf(a, b) with numpy broadcasting; float32 only.

TFLite Micro has no POW kernel; TFLite's (K/pow.cc) calls std::pow on floats, which is powf: the C kernel
calls powf from the target's libm, so the last bit may differ between C libraries.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ..ir.types import DType
from ._binary import BroadcastOp


@register
class Power(BroadcastOp):
    name = "power"
    dtypes = (DType.FLOAT32,)

    def compute(self, p, a, b):
        return np.power(a.astype(np.float32), b.astype(np.float32))
