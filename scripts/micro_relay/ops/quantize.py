"""qnn.quantize: TFLite QUANTIZE, float -> int8/int16 or a requantization between integer types.

Semantics (TFLM_ARITHMETIC.md section 6, M/quantize_common.cc, R/quantize.h, R/requantize.h):
- float32 -> int8/int16: out = clamp(int32(round(x / float(s))) + zp), a float division and std::round
  (halves away from zero). An out-of-range or NaN quotient, undefined in C++, saturates here (NaN -> min).
- int -> int (int8 -> int8/uint8/int16/int32, int16 -> int8/int16/int32, int32 -> int8/int16,
  uint8 -> int8): out = clamp(MBQM32(q - in_zp, M, s) + out_zp) with M, s = QuantizeMultiplier(in_s / out_s)
  in double; int32 arithmetic wraps as it does in TFLite Micro.
  TFLite Micro's int8 <-> uint8 fast path (equal scales, zero points 128 apart: q XOR 0x80) gives the very
  same bytes as this general path (M = 2^30, s = 1 is an exact identity), so it needs no kernel of its own.
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32, mbqm_single, wrap32
from ..arith.multiplier import f32, quantize_multiplier
from ..ir.registry import Attr, OpDef, op_where, register
from ..ir.types import DType
from ._common import ROUNDING, fail, out_type, require_quant, single_rounding, types
from ._elementwise import round_half_away_array, unary_infer

I8, U8, I16, I32, F32 = DType.INT8, DType.UINT8, DType.INT16, DType.INT32, DType.FLOAT32
SUPPORTED = {F32: (I8, I16), I8: (I8, U8, I16, I32), I16: (I8, I16, I32), I32: (I8, I16), U8: (I8,)}
SUFFIX = {I8: "s8", U8: "u8", I16: "s16", I32: "s32", F32: "f32"}


@register
class Quantize(OpDef):
    name = "qnn.quantize"
    dtypes = (DType.FLOAT32, DType.INT8, DType.UINT8, DType.INT16, DType.INT32)  # from, to each other as SUPPORTED says
    # rounding: of an int8 -> int8 requantization. ties: how a float input's halves round, away from zero
    # (TFLite's QUANTIZE) or to even (ONNX QuantizeLinear, which the QDQ lowering sets).
    attrs = {"rounding": ROUNDING, "ties": Attr(str, "away", ("away", "even"))}

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        src, dst = types(graph, node)[0], out_type(graph, node)
        if dst.dtype not in SUPPORTED.get(src.dtype, ()):
            fail(graph, node, f"quantize from {src.dtype.value} to {dst.dtype.value} is not supported by TFLite Micro")
        if dst.quant is None or dst.quant.per_channel:
            fail(graph, node, "quantize needs a per-tensor quantized output")
        q_out = dst.quant
        params = {"kind": f"{SUFFIX[src.dtype]}_{SUFFIX[dst.dtype]}", "size": dst.size, "out_zp": q_out.zero_point,
                  "out_min": dst.dtype.min, "out_max": dst.dtype.max}
        if src.dtype.is_float:
            if not q_out.scale > 0:
                fail(graph, node, f"quantize needs a positive output scale, got {q_out.scale}")
            params.update(scale=f32(q_out.scale), ties_even=node.attrs.get("ties", "away") == "even")
            return params
        require_quant(graph, node, src, "input")
        if src.quant is None:
            fail(graph, node, f"{src.dtype.value} input of quantize has no quantization parameters")
        mult, shift = quantize_multiplier(src.quant.scale / q_out.scale, where=op_where(graph, node))
        if node.attrs.get("rounding") == "single" and src.dtype != dst.dtype:
            fail(graph, node, f"single-rounding requantization is int8 to int8, got {src.dtype.value} to "
                              f"{dst.dtype.value}")
        single = single_rounding(graph, node, src.dtype, [shift])
        params.update(in_zp=src.quant.zero_point, mult=mult, shift=shift, single=single)
        return params

    def reference(self, graph, node, p, inputs):
        dst = out_type(graph, node)
        (x,) = inputs
        if x.dtype == np.float32:
            with np.errstate(over="ignore", invalid="ignore"):
                quotient = x / np.float32(p["scale"])  # float32 division, exact rounding
                q = np.rint(quotient) if p["ties_even"] else round_half_away_array(quotient)
            q = np.nan_to_num(q, nan=-np.inf)
            q = np.clip(q, p["out_min"] - p["out_zp"], p["out_max"] - p["out_zp"]).astype(np.int64) + p["out_zp"]
            return [q.astype(dst.dtype.numpy)]
        v = wrap32(x.astype(np.int64) - p["in_zp"])
        raw = wrap32((mbqm_single if p["single"] else mbqm32)(v, p["mult"], p["shift"]) + p["out_zp"])
        return [np.clip(raw, p["out_min"], p["out_max"]).astype(dst.dtype.numpy)]
