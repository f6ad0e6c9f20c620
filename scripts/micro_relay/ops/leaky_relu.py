"""nn.leaky_relu: TFLite LEAKY_RELU, out = x > 0 ? x : alpha * x.

Integer semantics (TFLM_ARITHMETIC.md section 7, M/leaky_relu_common.cc, R/leaky_relu.h): two multipliers,
    M_id, s_id = QuantizeMultiplier(in_s / out_s)
    M_a,  s_a  = QuantizeMultiplier(in_s * alpha / out_s)        (alpha is the float32 option)
computed in double. The sheet says float ratios widened to double; that reproduces the golden CSVs of the
single_op_int16 models exactly, but the TFLite Micro we test against computes in double (float ratios
differ from it by one on leaky_relu 3, 11, 18 and 19, exactly the models its README calls off by one from
golden), and bit-exactness with TFLite Micro is the contract. With x = q - in_zp:
    x >= 0: out = MBQM32(x, M_id, s_id) + out_zp
    x <  0: out = sign(M_a) * MBQM32(x, |M_a|, s_a) + out_zp        (a negative alpha gives a negative M_a)
then clamp to the type's range. float32: x > 0 ? x : x * alpha (NaN goes the alpha way, as in TFLite).
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32
from ..arith.multiplier import f32, quantize_multiplier
from ..ir.registry import Attr, OpDef, op_where, register
from ..ir.types import DType
from ._common import kernel_suffix, out_type, types
from ._elementwise import same_dtype, unary_infer


@register
class LeakyRelu(OpDef):
    name = "nn.leaky_relu"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    attrs = {"alpha": Attr(float, 0.2)}
    inplace = True

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        dtype = same_dtype(graph, node, (DType.INT8, DType.INT16, DType.FLOAT32))
        alpha = f32(node.attrs.get("alpha", 0.2))
        params = {"kind": kernel_suffix(dtype), "size": out_type(graph, node).size, "alpha": alpha}
        if dtype.is_float:
            return params
        q_in, q_out = types(graph, node)[0].quant, out_type(graph, node).quant
        alpha_mult, alpha_shift = quantize_multiplier(q_in.scale * alpha / q_out.scale, where=op_where(graph, node))
        id_mult, id_shift = quantize_multiplier(q_in.scale / q_out.scale, where=op_where(graph, node))
        params.update(in_zp=q_in.zero_point, out_zp=q_out.zero_point, id_mult=id_mult, id_shift=id_shift,
                      alpha_mult=abs(alpha_mult), alpha_shift=alpha_shift, alpha_negative=int(alpha_mult < 0))
        return params

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        (x,) = inputs
        if out.dtype.is_float:
            return [np.where(x > 0, x, x * np.float32(p["alpha"])).astype(np.float32)]
        v = x.astype(np.int64) - p["in_zp"]
        negative = mbqm32(v, p["alpha_mult"], p["alpha_shift"])
        negative = -negative if p["alpha_negative"] else negative
        raw = np.where(v >= 0, mbqm32(v, p["id_mult"], p["id_shift"]), negative) + p["out_zp"]
        return [np.clip(raw, out.dtype.min, out.dtype.max).astype(out.dtype.numpy)]
