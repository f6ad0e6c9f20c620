"""qnn.dequantize: TFLite DEQUANTIZE, int8/uint8/int16 -> float32.

Semantics (TFLM_ARITHMETIC.md section 6, R/dequantize.h): out = float(double(s) * (q - zp)), the product in
double and one rounding to float, which is the correctly rounded float product.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import DType
from ._common import fail, out_type, types
from ._elementwise import unary_infer

SUFFIX = {DType.INT8: "s8", DType.UINT8: "u8", DType.INT16: "s16"}


@register
class Dequantize(OpDef):
    name = "qnn.dequantize"
    dtypes = (DType.INT8, DType.UINT8, DType.INT16)  # to float32

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        src, dst = types(graph, node)[0], out_type(graph, node)
        if src.dtype not in SUFFIX or dst.dtype != DType.FLOAT32:
            fail(graph, node, f"dequantize from {src.dtype.value} to {dst.dtype.value} is not supported "
                              "(int8, uint8 or int16 to float32)")
        if src.quant is None or src.quant.per_channel:
            fail(graph, node, "dequantize needs a per-tensor quantized input")
        return {"kind": SUFFIX[src.dtype], "size": dst.size, "scale": float(np.float32(src.quant.scale)),
                "zp": src.quant.zero_point}

    def reference(self, graph, node, p, inputs):
        (x,) = inputs
        return [(np.float64(p["scale"]) * (x.astype(np.float64) - p["zp"])).astype(np.float32)]
