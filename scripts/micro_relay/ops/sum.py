"""sum: TFLite SUM over a set of axes, keepdims or not.

Arithmetic (R/reduce.h QuantizedMeanOrSum with compute_sum, M/reduce_common.cc; ReduceGeneric for float):
- int8/int16: (M, s) = QuantizeMultiplier(double(in_s) / double(out_s)); sum = int32 (wrapping) sum of raw q;
  out = clamp(MBQM32(int32(sum - in_zp * n), M, s) + out_zp) with n the elements per output. This is MEAN's
  arithmetic without the count folded into the multiplier, so the kernel is mean's (crt/src/mr_mean.c).
- float32: acc = 0.f, then acc = x + acc over the reduced box in row-major order.
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32, wrap32
from ..arith.multiplier import f32, quantize_multiplier
from ..ir.registry import OpDef, op_where, register
from ..ir.types import DType
from ._common import out_type, types
from ._reduce import REDUCE_ATTRS, fold, reduce_infer, rows, same_type_prepare


@register
class Sum(OpDef):
    name = "sum"
    attrs = REDUCE_ATTRS
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)

    def infer(self, graph, node):
        return reduce_infer(graph, node)

    def prepare(self, graph, node):
        p, data, out = same_type_prepare(graph, node, self.dtypes)
        if not data.dtype.is_float:
            mult, shift = quantize_multiplier(f32(data.quant.scale) / f32(out.quant.scale),
                                              where=op_where(graph, node))
            p.update(in_zp=data.quant.zero_point, out_zp=out.quant.zero_point, mult=mult, shift=shift)
        return p

    def reference(self, graph, node, p, inputs):
        x, out = inputs[0], out_type(graph, node)
        values = rows(x, p)
        if x.dtype == np.float32:
            return [fold(values, np.float32(0), lambda acc, v: v + acc).reshape(out.shape)]
        total = wrap32(values.astype(np.int64).sum(axis=1))
        shifted = wrap32(total - np.int64(p["in_zp"]) * p["count"])
        q = mbqm32(shifted, p["mult"], p["shift"]) + p["out_zp"]
        return [np.clip(q, out.dtype.min, out.dtype.max).astype(out.dtype.numpy).reshape(out.shape)]

    def macs(self, graph, node):
        return types(graph, node)[0].size
