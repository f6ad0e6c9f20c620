"""nn.dense: TFLite FULLY_CONNECTED. out[r, o] = act(sum_d in[r, d] * w[o, d] + bias[o]).

Integer semantics (TFLM_ARITHMETIC.md section 2): per-tensor int8 subtracts both zero points and takes its
multiplier from float(in_s * w_s) / out_s; per-channel uses in_s * w_s[o] / out_s in double. int16x8
accumulates in int64 and requantizes with the 64-bit multiply, unless its bias is int32 (then int32 and
the 32-bit multiply).
"""

from __future__ import annotations

import math

import numpy as np

from ..arith.fixedpoint import mbqm32, mbqm64
from ..arith.multiplier import f32, quantize_multipliers
from ..ir.registry import Attr, OpDef, op_where, register
from ..ir.types import DType, TensorType
from . import _cmsis_nn, _cost
from ._common import ACTIVATION, apply_clamp, c_float, clamp_range, fail, kernel_suffix, out_type, require_quant, types
from ._conv_common import check_bias_headroom


def _requant_zp(mult: int, shift: int, zero_point: int) -> list[int] | None:
    """mr_requant_zp_of (crt/include/micro_relay/simd.h): {hi, mult, k} with k = -shift - 1 and hi = 2^(k-1) +
    zero_point * 2^k, which requantize and add the zero point in five instructions, when mult >= 0 and
    k is in [1, 20]; else None. The DSP kernel requantizes with them in its assembly routine, which runs blocks
    of 4 units, for a per-tensor int8 layer whose bias is folded, whose clamp is int8's (SSAT) and whose depth is
    a nonzero multiple of 4 (no tail)."""
    k = -int(shift) - 1
    if mult < 0 or not 1 <= k <= 20:
        return None
    return [(1 << (k - 1)) + int(zero_point) * (1 << k), int(mult), k]


def _kernel_paths(p: dict) -> dict[str, str]:
    """The loops mr_dense_s8 takes (crt/src/mr_dense.c) for a layer's constants; the other kinds have one."""
    if p["kind"] != "s8":
        return {}
    if "folded_bias" not in p:
        unfolded = "one unit at a time, zero points subtracted"
        return {"dsp": unfolded, "portable": unfolded}
    portable = "one unit at a time (dot product, folded bias)"
    if p["units"] < 4 or p["depth"] < 4:
        return {"dsp": "one unit at a time (C)", "portable": portable}
    dsp = "blocks of 4 units in assembly (SMLAD, unrolled twice), "
    if "requant" in p:
        dsp += "requantized there (mr_requant_zp, SSAT)"
    else:
        tail = p["depth"] % 4
        dsp += "requantized in C" + (f" after the last {tail} value(s)" if tail else "")
    if p["units"] % 4:
        dsp += f"; the last block repeats {4 - p['units'] % 4} unit(s)"
    return {"dsp": dsp, "portable": portable}


@register
class Dense(OpDef):
    name = "nn.dense"
    attrs = {"activation": ACTIVATION, "output_shape": Attr(tuple),
             "quantized_bias_type": Attr(str, "default", ("default", "int32", "int64"))}
    num_inputs = (2, 3)
    kernels = ("dense",)

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
        else:
            real = [f32(f32(data.quant.scale) * f32(weight.quant.scale)) / out.quant.scale]
            weight_zp = weight.quant.zero_point
        mult, shift = quantize_multipliers(real, where=op_where(graph, node))
        params.update(mult=mult, shift=shift, in_zp=data.quant.zero_point, w_zp=weight_zp,
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
        if ("folded_bias" in params and params["kind"] == "s8" and len(mult) == 1 and (lo, hi) == (-128, 127)
                and params["depth"] % 4 == 0 and params["depth"] >= 4 and params["units"] >= 4):
            requant = _requant_zp(mult[0], shift[0], params["out_zp"])
            if requant is not None:
                params["requant"] = requant
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
        scaled = mbqm64(acc, mult, shift) if p["wide"] else mbqm32(acc, mult, shift)
        return [apply_clamp(scaled + p["out_zp"], p["act_min"], p["act_max"], out.dtype.numpy).reshape(out.shape)]

    def macs(self, graph, node):
        data, weight, _ = types(graph, node, 3)
        return data.size * weight.shape[0]

    def kernel_path(self, graph, node, p):
        """Our int8 kernel's loops (_kernel_paths); the CMSIS-NN function on that backend (ops/_cmsis_nn.py)."""
        return _cmsis_nn.kernel_path(node, p) if _cmsis_nn.uses_cmsis_nn(graph, node, p) else _kernel_paths(p)

    def estimate(self, graph, node, p):
        """int8 on our kernel only (ops/_cost.py)."""
        if p["kind"] != "s8" or _cmsis_nn.uses_cmsis_nn(graph, node, p):
            return None
        return _cost.dense_estimate(p)

    def emit(self, ctx, node, p):
        data, weight, bias = node.inputs
        cmsis_nn = _cmsis_nn.uses_cmsis_nn(ctx.graph, node, p)
        fields = {"rows": p["rows"], "depth": p["depth"], "units": p["units"]}
        if p["kind"] == "f32":
            fields.update(act_min=c_float(p["act_min"]), act_max=c_float(p["act_max"]))
        else:
            fields.update(in_zp=p["in_zp"], w_zp=p["w_zp"], out_zp=p["out_zp"], act_min=p["act_min"],
                          act_max=p["act_max"], per_channel=int(len(p["mult"]) > 1),
                          mult=ctx.const_array(p["mult"], "int32_t"), shift=ctx.const_array(p["shift"], "int32_t"),
                          folded_bias=ctx.const_array(p["folded_bias"], "int32_t")
                          if "folded_bias" in p and not cmsis_nn else "NULL")
            if "requant" in p and not cmsis_nn:
                fields["requant"] = ctx.const_array(p["requant"], "int32_t")
        kernel = f"mr_dense_{p['kind']}" + ("_wide" if p.get("wide") else "")
        if cmsis_nn:
            kernel = _cmsis_nn.adapter(ctx, node)
        params = ctx.params(f"mr_dense_{'f32' if p['kind'] == 'f32' else 'q'}_params", fields)
        call = f"{kernel}({params}, {ctx.tensor(data)}, {ctx.tensor(weight)}, {ctx.tensor(bias)}, {ctx.tensor(node.outputs[0])});"
        return _cmsis_nn.checked(call) if cmsis_nn else call
