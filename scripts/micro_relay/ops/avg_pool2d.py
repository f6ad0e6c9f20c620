"""nn.avg_pool2d: TFLite AVERAGE_POOL_2D over NHWC, windows clipped to the image.

Arithmetic (TFLM_ARITHMETIC.md section 4, RI/pooling.h; section 8 for float):
- int8/int16: acc = sum of the raw q of the in-image taps (zero point not subtracted), n = their count;
  out = (acc + n/2) / n if acc > 0 else (acc - n/2) / n, C truncating division (halves away from zero);
  then the fused-activation clamp. Input and output quantization must match (no rescale).
- float: total = 0.f + taps in (filter_y, filter_x) order, in float; out = clamp(total / float(n)).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType
from ._common import ACTIVATION, apply_clamp, out_type
from ._pooling import pool_infer, pool_macs, pool_prepare, pool_windows


@register
class AvgPool2d(OpDef):
    name = "nn.avg_pool2d"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    attrs = {"pool_size": Attr(tuple), "strides": Attr(tuple, (1, 1)), "padding": Attr(tuple, (0, 0, 0, 0)),
             "activation": ACTIVATION}

    def infer(self, graph, node):
        return pool_infer(graph, node)

    def prepare(self, graph, node):
        return pool_prepare(graph, node)

    def reference(self, graph, node, p, inputs):
        x = inputs[0]
        out = out_type(graph, node)
        is_float = x.dtype == np.float32
        result = np.zeros((p["batches"], p["out_h"], p["out_w"], p["channels"]), np.float32 if is_float else np.int64)
        for oy, ox, y0, y1, x0, x1 in pool_windows(p):
            n = (y1 - y0) * (x1 - x0)
            if is_float:
                total = np.zeros((p["batches"], p["channels"]), np.float32)
                for y in range(y0, y1):  # TFLM's order, one float32 add at a time
                    for xx in range(x0, x1):
                        total = (total + x[:, y, xx, :]).astype(np.float32)
                result[:, oy, ox, :] = total / np.float32(n)
            else:
                acc = x[:, y0:y1, x0:x1, :].astype(np.int64).sum(axis=(1, 2))
                half = n // 2
                # C division truncates toward zero; numpy's // floors, so divide magnitudes.
                q = np.where(acc > 0, (acc + half) // n, -((-(acc - half)) // n))
                result[:, oy, ox, :] = q
        return [apply_clamp(result, p["act_min"], p["act_max"], out.dtype.numpy)]

    def macs(self, graph, node):
        return pool_macs(graph, node)
