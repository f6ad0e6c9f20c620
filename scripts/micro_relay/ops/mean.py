"""mean: TFLite MEAN over a set of axes, keepdims or not. The common case is NHWC spatial (axes 1, 2).

Arithmetic (TFLM_ARITHMETIC.md section 7, R/reduce.h QuantizedMeanOrSum; section 8 for float):
- int8/int16: (M, s) = QuantizeMultiplier(double(in_s) / double(out_s)); n = elements per output;
  k = min(floor(log2 n), 32, 31 + s); M' = int32((int64(M) << k) / n) (truncating); s' = s - k;
  sum = int32 sum of raw q; out = clamp(MBQM32(int32(sum - in_zp * n), M', s') + out_zp) to the type.
- float: sum = 0.f + x in row-major order over the reduced axes, in float; out = sum / float(n).
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32, wrap32
from ..arith.multiplier import f32, quantize_multiplier
from ..ir.registry import Attr, OpDef, op_where, register
from ..ir.types import DType
from ._common import fail, kernel_suffix, out_type, require_quant, types
from ._reduce import reduce_infer, rows, view_params


@register
class Mean(OpDef):
    name = "mean"
    attrs = {"axis": Attr(tuple), "keepdims": Attr(bool, False)}
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)

    def infer(self, graph, node):
        return reduce_infer(graph, node)

    def prepare(self, graph, node):
        data, out = types(graph, node)[0], out_type(graph, node)
        if data.dtype != out.dtype or data.dtype not in (DType.INT8, DType.INT16, DType.FLOAT32):
            fail(graph, node, f"mean runs int8, int16 or float32 to the same type, got "
                              f"{data.dtype.value} -> {out.dtype.value}")
        p = {**view_params(graph, node), "kind": kernel_suffix(data.dtype)}
        count = p["count"]
        if data.dtype.is_float:
            return p
        require_quant(graph, node, data, "input")
        require_quant(graph, node, out, "output")
        mult, shift = quantize_multiplier(f32(data.quant.scale) / f32(out.quant.scale), where=op_where(graph, node))
        k = min(count.bit_length() - 1, 32, 31 + shift)
        p.update(in_zp=data.quant.zero_point, out_zp=out.quant.zero_point,
                 mult=int((mult << k) // count), shift=shift - k)
        return p

    def reference(self, graph, node, p, inputs):
        x, out = inputs[0], out_type(graph, node)
        rows_ = rows(x, p)  # reduced axes last, row-major
        if x.dtype == np.float32:
            total = np.zeros(rows_.shape[0], np.float32)
            for j in range(p["count"]):  # one float32 add at a time, in TFLite's order
                total = (total + rows_[:, j]).astype(np.float32)
            return [(total / np.float32(p["count"])).astype(np.float32).reshape(out.shape)]
        total = wrap32(rows_.astype(np.int64).sum(axis=1))
        shifted = wrap32(total - np.int64(p["in_zp"]) * p["count"])
        q = mbqm32(shifted, p["mult"], p["shift"]) + p["out_zp"]
        return [np.clip(q, out.dtype.min, out.dtype.max).astype(out.dtype.numpy).reshape(out.shape)]

    def macs(self, graph, node):
        return types(graph, node)[0].size
