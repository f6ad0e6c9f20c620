"""nn.max_pool2d: TFLite MAX_POOL_2D over NHWC, windows clipped to the image.

Arithmetic (TFLM_ARITHMETIC.md section 4, RI/pooling.h): start at the type's lowest value, take
std::max with each in-image tap, then the fused-activation clamp. Integer types keep the input's
quantization (Prepare requires the output's to match). In float std::max(m, NaN) keeps m, so NaN taps
are skipped, as in TFLite Micro.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType
from ._common import ACTIVATION, apply_clamp, out_type
from ._pooling import pool_infer, pool_macs, pool_prepare, pool_windows


@register
class MaxPool2d(OpDef):
    name = "nn.max_pool2d"
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
        lowest = np.finfo(np.float32).min if x.dtype == np.float32 else np.iinfo(x.dtype).min
        result = np.zeros((p["batches"], p["out_h"], p["out_w"], p["channels"]), x.dtype)
        for oy, ox, y0, y1, x0, x1 in pool_windows(p):
            best = np.full((p["batches"], p["channels"]), lowest, x.dtype)
            for y in range(y0, y1):
                for xx in range(x0, x1):
                    tap = x[:, y, xx, :]
                    best = np.where(best < tap, tap, best)  # std::max(best, tap)
            result[:, oy, ox, :] = best
        return [apply_clamp(result, p["act_min"], p["act_max"], out.dtype.numpy)]

    def macs(self, graph, node):
        return pool_macs(graph, node)
