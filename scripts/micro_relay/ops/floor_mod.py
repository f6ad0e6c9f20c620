"""floor_mod: TFLite FLOOR_MOD, the remainder of floor division, with b's sign; float32 and int32.

float32 (R/floor_mod.h): r = fmodf(a, b); r != 0 and (b < 0) != (r < 0) gives r + b, otherwise r.
int32 (TFLite's own FLOOR_MOD; TFLite Micro has float32 only): the same rule on C's % (computed in int64, so
INT32_MIN % -1 is 0); a divisor of 0 gives 0, as numpy's mod does.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import register
from ..ir.types import DType
from ._binary import BroadcastOp


@register
class FloorMod(BroadcastOp):
    name = "floor_mod"
    dtypes = (DType.INT32, DType.FLOAT32)

    def compute(self, p, a, b):
        if p["kind"] == "f32":
            a, b = a.astype(np.float32), b.astype(np.float32)
            r = np.fmod(a, b).astype(np.float32)
            return np.where((r != 0) & ((b < 0) != (r < 0)), r + b, r).astype(np.float32)
        a, b = a.astype(np.int64), b.astype(np.int64)
        safe = np.where(b == 0, 1, b)
        r = np.fmod(a, safe)
        r = np.where((r != 0) & ((b < 0) != (r < 0)), r + b, r)
        return np.where(b == 0, 0, r)
