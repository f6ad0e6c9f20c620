"""nn.relu6: TFLite RELU6, out = min(max(x, 0), 6).

Integer semantics (M/activations_common.cc Relu6Prepare, M/activations.h Relu6Quantized): no rescaling at
all, the raw input is clamped in the input's own quantization,
    out = clamp(q, in_zp, six)        six = clamp(round(6.0f / in_s) + in_zp) (float division, std::round)
and the output's quantization is not read (a converter gives it the input's). int8 and int16 alike.
float32: x > 6 ? 6 : (x < 0 ? 0 : x) (NaN stays NaN).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import DType
from ._common import kernel_suffix, out_type, types
from ._elementwise import float_to_quantized, same_dtype, unary_infer


@register
class Relu6(OpDef):
    name = "nn.relu6"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    inplace = True

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        dtype = same_dtype(graph, node, (DType.INT8, DType.INT16, DType.FLOAT32))
        if dtype.is_float:
            return {"kind": "f32", "size": out_type(graph, node).size, "lower": 0.0, "upper": 6.0}
        q_in = types(graph, node)[0].quant
        return {"kind": kernel_suffix(dtype), "size": out_type(graph, node).size, "lower": q_in.zero_point,
                "upper": float_to_quantized(6.0, q_in.scale, q_in.zero_point, dtype)}

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        (x,) = inputs
        upper, lower = out.dtype.numpy.type(p["upper"]), out.dtype.numpy.type(p["lower"])
        return [np.where(x > upper, upper, np.where(x < lower, lower, x)).astype(out.dtype.numpy)]
