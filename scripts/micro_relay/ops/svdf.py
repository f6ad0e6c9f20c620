"""nn.svdf: TFLite SVDF, a rank-r factored layer over a window of the last `memory` feature frames.

Inputs (input [B, I], weights_feature [F, I], weights_time [F, M], state [B, F*M], bias [U]; TFLite's order
has the bias before the state; the bias is required, as TFLite Micro's kernel reads it unconditionally);
outputs (output [B, U], the updated state [B, F*M]), which an assign stores back into the state (the TFLite
converter adds it for the activation_state variable tensor). U = F / rank. Per invoke, as TFLite Micro's
svdf_common.cc computes it:
1. each state row (b, f) of M values shifts left by one; its last slot takes the feature dot
   sum_c wf[f, c] * (x[b, c] - in_zp), rescaled to the state's scale (int8: MBQM by in_s*wf_s/state_s,
   that float32 quotient, plus the state's zero point, clamped to the state's type);
2. per filter the time dot sum_j wt[f, j] * (state[b, f, j] - state_zp) (int32, wrapping as TFLite Micro's
   int32 does);
3. per unit: bias + the sum of its `rank` filters; int8 rescales it (MBQM by state_s*wt_s/out_s) plus out_zp,
   clamped to int8: TFLite Micro's integer SVDF applies no fused activation, so neither does this one.
   float32 applies the fused activation.
float32 sums in TFLite Micro's order (left to right, from 0); int8 needs int8 weights_feature, int16 or int8
weights_time and state of that same type, an int32 bias (TFLite Micro's Prepare reads its scale, and
requires it to be state_s * wt_s within 1e-5).
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32, wrap32
from ..arith.multiplier import f32, quantize_multiplier
from ..ir.registry import Attr, OpDef, op_where, register
from ..ir.types import DType, TensorType
from ._common import ACTIVATION, apply_clamp, clamp_range, fail, out_type, require_quant, types

MAX_INPUT_SIZE = 1 << 16  # keeps the int8 feature dot inside int32 (|w * (x - zp)| <= 128 * 255)


@register
class Svdf(OpDef):
    name = "nn.svdf"
    attrs = {"rank": Attr(int), "activation": ACTIVATION}
    num_inputs = (5, 5)
    dtypes = (DType.FLOAT32, DType.INT8)

    def _dims(self, graph, node):
        data, wf, wt, state, bias = types(graph, node, 5)
        rank = node.attrs["rank"]
        if data.rank != 2 or wf.rank != 2 or wt.rank != 2 or state.rank != 2:
            fail(graph, node, "SVDF input, weights and state must be 2-D, got "
                              f"{[list(t.shape) for t in (data, wf, wt, state)]}")
        batch, size = data.shape
        filters, memory = wt.shape
        if wf.shape != (filters, size):
            fail(graph, node, f"weights_feature is {list(wf.shape)}, expected [{filters}, {size}]")
        if rank < 1 or filters % rank:
            fail(graph, node, f"rank {rank} does not divide the {filters} filters")
        if state.shape != (batch, filters * memory):
            fail(graph, node, f"state is {list(state.shape)}, expected [{batch}, {filters * memory}]")
        units = filters // rank
        if bias.shape != (units,):
            fail(graph, node, f"bias is {list(bias.shape)}, expected [{units}]")
        return batch, size, filters, units, rank, memory

    def infer(self, graph, node):
        batch, _, _, units, _, _ = self._dims(graph, node)
        data, state = graph.type_of(node.inputs[0]), graph.type_of(node.inputs[3])
        return [TensorType((batch, units), data.dtype, out_type(graph, node).quant),
                TensorType(state.shape, state.dtype, state.quant)]

    def prepare(self, graph, node):
        batch, size, filters, units, rank, memory = self._dims(graph, node)
        data, wf, wt, state, bias = types(graph, node, 5)
        out = out_type(graph, node)
        p = {"batch": batch, "input_size": size, "filters": filters, "units": units, "rank": rank,
             "memory": memory}
        if data.dtype == DType.FLOAT32:
            if any(t.dtype != DType.FLOAT32 for t in (wf, wt, bias, state, out)):
                fail(graph, node, "float32 SVDF needs float32 weights, bias, state and output")
            lo, hi = clamp_range(graph, node)
            return {**p, "kind": "f32", "act_min": lo, "act_max": hi}
        if data.dtype != DType.INT8 or out.dtype != DType.INT8 or wf.dtype != DType.INT8:
            fail(graph, node, f"quantized SVDF needs int8 input, weights_feature and output, got "
                              f"{data.dtype.value}, {wf.dtype.value}, {out.dtype.value}")
        if wt.dtype not in (DType.INT16, DType.INT8) or state.dtype != wt.dtype:
            fail(graph, node, f"int8 SVDF needs weights_time and state both int16 or both int8, got "
                              f"{wt.dtype.value} and {state.dtype.value}")
        if bias.dtype != DType.INT32:
            fail(graph, node, "int8 SVDF needs an int32 bias (TFLite Micro reads its scale)")
        for t, what in ((data, "input"), (wf, "weights_feature"), (wt, "weights_time"), (state, "state"),
                        (out, "output"), (bias, "bias")):
            if t.quant is None or t.quant.per_channel:
                fail(graph, node, f"int8 SVDF needs per-tensor quantization of its {what}")
        if size > MAX_INPUT_SIZE:
            fail(graph, node, f"input size {size} is above the {MAX_INPUT_SIZE} an int32 feature dot holds")
        s_in, s_wf, s_wt, s_st, s_out = (t.quant.scale for t in (data, wf, wt, state, out))
        gap = abs(bias.quant.scale - f32(f32(s_st) * f32(s_wt)))
        if not gap < 1e-5:  # TFLite Micro's Prepare: an absolute tolerance
            fail(graph, node, f"bias scale {bias.quant.scale:.6g} is {gap:.3g} away from state scale * weights_time "
                              f"scale ({f32(s_st) * f32(s_wt):.6g}); TFLite Micro allows 1e-5")
        where = op_where(graph, node)
        mult1, shift1 = quantize_multiplier(f32(f32(f32(s_in) * f32(s_wf)) / f32(s_st)), where)
        mult2, shift2 = quantize_multiplier(f32(f32(f32(s_st) * f32(s_wt)) / f32(s_out)), where)
        lo, hi = (state.dtype.min, state.dtype.max)
        return {**p, "kind": "s8_s16" if state.dtype == DType.INT16 else "s8_s8",
                "in_zp": data.quant.zero_point, "state_zp": state.quant.zero_point,
                "out_zp": out.quant.zero_point, "mult1": mult1, "shift1": shift1, "mult2": mult2,
                "shift2": shift2, "state_min": lo, "state_max": hi}

    def reference(self, graph, node, p, inputs):
        data, wf, wt, state, bias = inputs
        b, f, m = p["batch"], p["filters"], p["memory"]
        rows = state.reshape(b, f, m)
        new = np.empty_like(rows)
        new[:, :, :-1] = rows[:, :, 1:]
        if p["kind"] == "f32":
            feature = np.zeros((b, f), np.float32)
            for c in range(p["input_size"]):  # TFLite Micro's order, in float32
                feature = feature + wf[None, :, c] * data[:, c:c + 1]
            new[:, :, -1] = feature
            time = np.zeros((b, f), np.float32)
            for j in range(m):
                time = time + wt[None, :, j] * new[:, :, j]
            acc = np.tile(bias, (b, 1))
            grouped = time.reshape(b, p["units"], p["rank"])
            for r in range(p["rank"]):
                acc = acc + grouped[:, :, r]
            out = apply_clamp(acc, p["act_min"], p["act_max"], np.float32)
            return [out, new.reshape(state.shape)]
        dot = (data.astype(np.int64) - p["in_zp"]) @ wf.astype(np.int64).T
        scaled = mbqm32(dot, p["mult1"], p["shift1"]) + p["state_zp"]
        new[:, :, -1] = np.clip(scaled, p["state_min"], p["state_max"])
        time = wrap32(((new.astype(np.int64) - p["state_zp"]) * wt.astype(np.int64)[None]).sum(axis=2))
        acc = wrap32(bias.astype(np.int64)[None, :] + time.reshape(b, p["units"], p["rank"]).sum(axis=2))
        out = np.clip(mbqm32(acc, p["mult2"], p["shift2"]) + p["out_zp"], -128, 127).astype(np.int8)
        return [out, new.reshape(state.shape)]

    def macs(self, graph, node):
        batch, size, filters, units, rank, memory = self._dims(graph, node)
        return batch * filters * (size + memory)
