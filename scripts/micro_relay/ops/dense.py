"""nn.dense: TFLite FULLY_CONNECTED. out[r, o] = act(sum_d in[r, d] * w[o, d] + bias[o]).

Integer semantics (TFLM_ARITHMETIC.md section 2): per-tensor int8 subtracts both zero points and takes its
multiplier from float(in_s * w_s) / out_s; per-channel uses in_s * w_s[o] / out_s in double. int16x8
accumulates in int64 and requantizes with the 64-bit multiply, unless its bias is int32 (then int32 and
the 32-bit multiply). Prepare folds bias - in_zp * sum(w) per unit when the weights are constant. The
kernels: kernels/portable/dense.py, kernels/arm_dsp/dense.py, kernels/cmsis_nn/dense.py.
"""

from __future__ import annotations

import math

import numpy as np

from ..arith.fixedpoint import mbqm32, mbqm64, mbqm_single
from ..arith.multiplier import f32, quantize_multipliers
from ..ir.registry import Attr, OpDef, op_where, register
from ..ir.types import DType, TensorType
from ._common import (ACTIVATION, ROUNDING, apply_clamp, clamp_range, fail, kernel_suffix, out_type, require_quant,
                      single_rounding, types)
from ._conv_common import check_bias_headroom


@register
class Dense(OpDef):
    name = "nn.dense"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    attrs = {"activation": ACTIVATION, "output_shape": Attr(tuple),
             "quantized_bias_type": Attr(str, "default", ("default", "int32", "int64")), "rounding": ROUNDING}
    num_inputs = (2, 3)

    def infer(self, graph, node):
        data, weight, bias = types(graph, node, 3)
        if weight.rank != 2 or data.size % weight.shape[1]:
            fail(graph, node, f"weight {list(weight.shape)} does not fit input {list(data.shape)}")
        rows = data.size // weight.shape[1]
        shape = tuple(node.attrs["output_shape"])
        if not shape or math.prod(shape) != rows * weight.shape[0] or shape[-1] != weight.shape[0]:
            fail(graph, node, f"output shape {list(shape)} does not hold {rows} rows of {weight.shape[0]}")
        if bias is not None and bias.size != weight.shape[0]:
            fail(graph, node, f"bias has {bias.size} elements, expected one per unit ({weight.shape[0]})")
        return [TensorType(shape, data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, weight, bias = types(graph, node, 3)
        out = out_type(graph, node)
        lo, hi = clamp_range(graph, node)
        params = {"rows": data.size // weight.shape[1], "depth": weight.shape[1], "units": weight.shape[0],
                  "act_min": lo, "act_max": hi, "kind": kernel_suffix(data.dtype)}
        if data.dtype.is_float:
            if weight.dtype != DType.FLOAT32 or (bias is not None and bias.dtype != DType.FLOAT32):
                fail(graph, node, "float32 dense needs float32 weight and bias")
            return params
        for t, what in ((data, "input"), (weight, "weight"), (out, "output")):
            require_quant(graph, node, t, what)
        if weight.dtype != DType.INT8:
            fail(graph, node, f"{data.dtype.value} dense needs int8 weights, got {weight.dtype.value}")
        allowed = (DType.INT32,) if data.dtype != DType.INT16 else (DType.INT32, DType.INT64)
        if bias is not None and bias.dtype not in allowed:
            fail(graph, node, f"{data.dtype.value} dense needs an {' or '.join(d.value for d in allowed)} bias, "
                              f"got {bias.dtype.value}")
        wq = weight.quant
        if wq.per_channel and (wq.axis != 0 or len(wq.scales) not in (1, weight.shape[0])):
            fail(graph, node, f"weight has {len(weight.quant.scales)} scales on axis {weight.quant.axis} of "
                              f"{list(weight.shape)}; dense needs one per unit (axis 0)")
        if weight.quant.per_channel:
            real = [data.quant.scale * s / out.quant.scale for s in weight.quant.scales]
            weight_zp = 0
        elif node.attrs.get("rounding") == "single":  # the exact rescale: no float32 product on the way
            real = [data.quant.scale * weight.quant.scale / out.quant.scale]
            weight_zp = weight.quant.zero_point
        else:
            real = [f32(f32(data.quant.scale) * f32(weight.quant.scale)) / out.quant.scale]
            weight_zp = weight.quant.zero_point
        mult, shift = quantize_multipliers(real, where=op_where(graph, node))
        params.update(mult=mult, shift=shift, in_zp=data.quant.zero_point, w_zp=weight_zp,
                      single=single_rounding(graph, node, data.dtype, shift),
                      out_zp=out.quant.zero_point,
                      # int16x8 accumulates in int64 unless the bias is int32, or there is no bias and the
                      # model's quantized_bias_type says int32 (TFLM_ARITHMETIC.md section 2)
                      wide=data.dtype == DType.INT16 and (
                          bias.dtype == DType.INT64 if bias is not None
                          else node.attrs.get("quantized_bias_type", "default") != "int32"))
        check_bias_headroom(graph, node, weight.shape[1], data.dtype, params["wide"])
        weight_data = graph.constant(node.inputs[1])
        bias_data = graph.constant(node.inputs[2]) if node.inputs[2] else np.zeros(weight.shape[0], np.int64)
        if weight_zp == 0 and weight_data is not None and bias_data is not None and not params["wide"]:
            # sum_d w*(x - in_zp) + bias = sum_d w*x + (bias - in_zp*sum_d w): fold the constant part now so
            # the kernel's inner loop is a plain dot product. Integer sums are order-free: still exact.
            folded = bias_data.astype(np.int64) - params["in_zp"] * weight_data.astype(np.int64).sum(axis=1)
            if np.all(np.abs(folded) < 2**31):
                params["folded_bias"] = folded.astype(np.int32)
        return params

    def reference(self, graph, node, p, inputs):
        data, weight, bias = inputs
        out = out_type(graph, node)
        x = data.reshape(p["rows"], p["depth"])
        if data.dtype == np.float32:
            acc = np.zeros((p["rows"], p["units"]), dtype=np.float32)
            for d in range(p["depth"]):  # TFLM's summation order, in float32
                acc += x[:, d:d + 1] * weight[:, d][None, :]
            if bias is not None:
                acc = acc + bias.astype(np.float32)
            return [apply_clamp(acc, p["act_min"], p["act_max"], np.float32).reshape(out.shape)]
        acc = (x.astype(np.int64) - p["in_zp"]) @ (weight.astype(np.int64) - p["w_zp"]).T
        if bias is not None:
            acc = acc + bias.astype(np.int64)[None, :]
        mult = np.resize(p["mult"], p["units"])[None, :]
        shift = np.resize(p["shift"], p["units"])[None, :]
        if p.get("single"):
            scaled = mbqm_single(acc, mult, shift)
        else:
            scaled = mbqm64(acc, mult, shift) if p["wide"] else mbqm32(acc, mult, shift)
        return [apply_clamp(scaled + p["out_zp"], p["act_min"], p["act_max"], out.dtype.numpy).reshape(out.shape)]

    def macs(self, graph, node):
        data, weight, _ = types(graph, node, 3)
        return data.size * weight.shape[0]
