"""nn.lstm: TFLite UNIDIRECTIONAL_SEQUENCE_LSTM as TFLite Micro runs it (M/unidirectional_sequence_lstm.cc,
M/lstm_eval.h), and ONNX LSTM (forward, default activations) in float.

Inputs: TFLite's 24 (ops/_lstm.py names them): data [B, T, I] ([T, B, I] when time_major), the input and
recurrent weights of the gates i, f, c, o ([S, I] and [S, S]), their biases [S], h_state [B, S] and c_state.
Peephole, projection and layer-norm inputs must be absent, as TFLite Micro's kernel requires. Outputs: the
sequence of hidden states [B, T, S], and the new h and c states (what TFLite Micro leaves in its variables).

Per batch row and time step, for each gate g (sigmoid, tanh for the cell gate):
    g = act(sat16(FC(x, W_g, b_g) + FC(h, R_g)))       FCs to int16 at scale 2^-12, zero point 0
    c = sat16(mul(f, c) + mul(i, cg));  c = clip(c)     mul: MBQM32(a * b) to the cell scale, clamped to int16
    h = mul(tanh_cell(c), o) + h_zp, clamped to the hidden type;  out[t] = h (bytes copied as they are)
The FC multipliers are per-tensor from double(float(in_s * w_s)) / 2^-12 (TFLite Micro's FC rule; per-channel
weights are refused: its LSTM reads only the per-tensor multiplier), int8 accumulates in int32 and uses MBQM32,
int16 in int64 with the 64-bit MBQM. float32 is the same sequence in float: FC sums from 0 in input order, then
+ bias, clamped to +-FLT_MAX like every mul; sums of gates are not clamped. Kernel: kernels/portable/lstm.py.
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32, mbqm64
from ..arith.multiplier import FLT_MAX, f32, quantize_multiplier
from ..ir.registry import Attr, OpDef, op_where, register
from ..ir.types import DType, TensorType
from . import _lstm as L
from ._common import fail, kernel_suffix, out_type, types
from ._conv_common import check_wide_shifts

_ACCUMULATOR = {DType.INT8: (DType.INT32, (1 << 31) - 1), DType.INT16: (DType.INT64, 1 << 47)}


@register
class Lstm(OpDef):
    name = "nn.lstm"
    attrs = {"time_major": Attr(bool, False), "cell_clip": Attr(float, 0.0)}
    num_inputs = (1, L.NUM_INPUTS)  # absent inputs are ""; infer names what a missing one means
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)

    def infer(self, graph, node):
        t = types(graph, node, L.NUM_INPUTS)
        for indices, what in L.UNSUPPORTED:
            if any(t[i] is not None for i in indices):
                fail(graph, node, f"LSTM with {what} is not supported (TFLite Micro's kernel has none)")
        required = [L.INPUT, *range(L.W_INPUT, L.W_INPUT + 8), *range(L.BIAS, L.BIAS + 4), L.H_STATE, L.C_STATE]
        missing = [i for i in required if t[i] is None]
        if missing:
            what = "CIFG (no input gate)" if missing[0] in (1, 5, 12) else f"input {missing[0]} absent"
            fail(graph, node, f"LSTM with {what} is not supported (TFLite Micro needs every gate's weights and bias)")
        data, h, c = t[L.INPUT], t[L.H_STATE], t[L.C_STATE]
        if data.rank != 3:
            fail(graph, node, f"LSTM input must be 3-D, got {list(data.shape)}")
        if h.rank != 2:
            fail(graph, node, f"LSTM hidden state must be 2-D [batch, units], got {list(h.shape)}")
        time_major = node.attrs.get("time_major", False)
        batch = data.shape[1] if time_major else data.shape[0]
        size, units = data.shape[2], h.shape[1]
        for g in range(4):
            for i, shape in ((L.W_INPUT + g, (units, size)), (L.W_RECURRENT + g, (units, units)),
                             (L.BIAS + g, (units,))):
                if t[i].shape != shape:
                    fail(graph, node, f"LSTM input {i} has shape {list(t[i].shape)}, expected {list(shape)}")
        for state, what in ((h, "hidden"), (c, "cell")):
            if state.size != batch * units:
                fail(graph, node, f"LSTM {what} state holds {state.size} values, expected {batch} x {units}")
        out = TensorType((data.shape[0], data.shape[1], units), data.dtype, out_type(graph, node).quant)
        return [out, TensorType(h.shape, h.dtype, h.quant), TensorType(c.shape, c.dtype, c.quant)]

    def prepare(self, graph, node):
        t = types(graph, node, L.NUM_INPUTS)
        data, h, c = t[L.INPUT], t[L.H_STATE], t[L.C_STATE]
        weights, biases = t[L.W_INPUT:L.W_INPUT + 8], t[L.BIAS:L.BIAS + 4]
        time_major = bool(node.attrs.get("time_major", False))
        p = {"kind": kernel_suffix(data.dtype), "time_major": int(time_major),
             "batch": data.shape[1] if time_major else data.shape[0],
             "time": data.shape[0] if time_major else data.shape[1], "input_size": data.shape[2],
             "units": h.shape[1]}
        if data.dtype not in self.dtypes:
            fail(graph, node, f"LSTM supports {[d.value for d in self.dtypes]} inputs, got {data.dtype.value}")
        if h.dtype != data.dtype or out_type(graph, node).dtype != data.dtype:
            fail(graph, node, "LSTM input, hidden state and output must share one dtype")
        clip = f32(node.attrs.get("cell_clip", 0.0))
        if not np.isfinite(clip) or clip < 0:
            fail(graph, node, f"LSTM cell clip {clip} must be finite and not negative")
        if data.dtype == DType.FLOAT32:
            if any(x.dtype != DType.FLOAT32 for x in (*weights, *biases, c)):
                fail(graph, node, "float32 LSTM needs float32 weights, biases and cell state")
            p.update(cell_clip=clip)
            return p
        return {**p, **self._quantized(graph, node, t, clip)}

    def _quantized(self, graph, node, t, clip) -> dict:
        data, h, c = t[L.INPUT], t[L.H_STATE], t[L.C_STATE]
        weights, biases = t[L.W_INPUT:L.W_INPUT + 8], t[L.BIAS:L.BIAS + 4]
        bias_type, limit = _ACCUMULATOR[data.dtype]
        if any(w.dtype != DType.INT8 for w in weights) or any(b.dtype != bias_type for b in biases):
            fail(graph, node, f"{data.dtype.value} LSTM needs int8 weights and {bias_type.value} biases")
        if c.dtype != DType.INT16:
            fail(graph, node, f"quantized LSTM needs an int16 cell state, got {c.dtype.value}")
        for x, what in ((data, "input"), (h, "hidden state"), (c, "cell state"), *((w, "weight") for w in weights)):
            if x.quant is None:
                fail(graph, node, f"LSTM {what} is {x.dtype.value} without quantization parameters")
        if any(w.quant.per_channel for w in weights):
            fail(graph, node, "LSTM with per-channel weights is not supported (TFLite Micro's LSTM applies one "
                              "multiplier per weight tensor)")
        if any(w.quant.zero_point for w in weights):
            fail(graph, node, "LSTM weights must have zero point 0")
        where = op_where(graph, node)
        size, units = data.shape[2], h.shape[1]
        span = 2 * (data.dtype.max + 1) - 1  # largest |q - zp|
        bias_data = [graph.constant(n) for n in node.inputs[L.BIAS:L.BIAS + 4]]
        if any(b is None for b in bias_data):
            fail(graph, node, "quantized LSTM needs constant biases")
        bias_peak = max(int(np.abs(b.astype(np.int64)).max()) if b.size else 0 for b in bias_data)
        if max(size, units) * span * 128 + bias_peak >= limit:
            fail(graph, node, f"LSTM gate sums of {max(size, units)} products and biases up to {bias_peak} can "
                              f"overflow the {bias_type.value} accumulator")

        def fc(x_scale, w):  # TFLite Micro's per-tensor FC multiplier: the product in float
            return quantize_multiplier(f32(f32(x_scale) * f32(w.quant.scale)) / L.GATE_IN_SCALE, where)

        in_mult, in_shift = zip(*(fc(data.quant.scale, w) for w in weights[:4]))
        rec_mult, rec_shift = zip(*(fc(h.quant.scale, w) for w in weights[4:]))
        if data.dtype == DType.INT16:
            check_wide_shifts(graph, node, np.array(in_shift + rec_shift))
        cs = c.quant.scale
        forget = quantize_multiplier(L.mul_scale(L.GATE_OUT_SCALE, cs, cs), where)
        update = quantize_multiplier(L.mul_scale(L.GATE_OUT_SCALE, L.GATE_OUT_SCALE, cs), where)
        hidden = quantize_multiplier(L.mul_scale(L.GATE_OUT_SCALE, L.GATE_OUT_SCALE, h.quant.scale), where)
        tanh = L.tanh_params(L.cell_scale_power(cs))
        if tanh is None:
            fail(graph, node, f"LSTM cell state scale {cs} is outside what TFLite Micro's int16 tanh can take")
        folded = None
        weight_data = [graph.constant(n) for n in node.inputs[L.W_INPUT:L.W_INPUT + 8]]
        if data.dtype == DType.INT8 and all(w is not None for w in weight_data):
            # sum w * (x - zp) + b = sum w * x + (b - zp * sum w), per gate unit, for the input FCs and (without
            # a bias) the recurrent ones: the kernel's inner loop is a plain dot product. The check above bounds
            # both sums and the folded terms within int32, so the result is TFLite Micro's exactly.
            zps = [data.quant.zero_point] * 4 + [h.quant.zero_point] * 4
            biases = [b.astype(np.int64) for b in bias_data] + [np.zeros(units, np.int64)] * 4
            folded = np.stack([b - zp * w.astype(np.int64).sum(axis=1)
                               for b, zp, w in zip(biases, zps, weight_data)]).astype(np.int32)
        return {"folded_bias": folded, "in_zp": data.quant.zero_point, "h_zp": h.quant.zero_point,
                "in_mult": list(in_mult), "in_shift": list(in_shift), "rec_mult": list(rec_mult),
                "rec_shift": list(rec_shift), "forget_mult": forget[0], "forget_shift": forget[1],
                "update_mult": update[0], "update_shift": update[1], "hidden_mult": hidden[0],
                "hidden_shift": hidden[1], "h_min": h.dtype.min, "h_max": h.dtype.max,
                "has_clip": int(clip > 0), "cell_clip": L.quantized_cell_clip(clip, cs) if clip > 0 else 0,
                "tanh_mult": tanh[0], "tanh_shift": tanh[1]}

    def reference(self, graph, node, p, inputs):
        data, h0, c0 = inputs[L.INPUT], inputs[L.H_STATE], inputs[L.C_STATE]
        w_in, w_rec = inputs[L.W_INPUT:L.W_INPUT + 4], inputs[L.W_RECURRENT:L.W_RECURRENT + 4]
        biases = inputs[L.BIAS:L.BIAS + 4]
        batch, steps, units = p["batch"], p["time"], p["units"]
        step = _float_step if p["kind"] == "f32" else _quantized_step
        x = data if p["time_major"] else data.transpose(1, 0, 2)  # [T, B, I]
        hs, cs = h0.reshape(batch, units).copy(), c0.reshape(batch, units).copy()
        out = np.zeros((steps, batch, units), dtype=data.dtype)
        for b in range(batch):
            h, c = hs[b], cs[b]
            for time in range(steps):
                h, c = step(p, x[time, b], h, c, w_in, w_rec, biases)
                out[time, b] = h
            hs[b], cs[b] = h, c
        out = out if p["time_major"] else out.transpose(1, 0, 2)
        return [np.ascontiguousarray(out), hs.reshape(h0.shape), cs.reshape(c0.shape)]

    def macs(self, graph, node):
        t = types(graph, node, L.NUM_INPUTS)
        units, size = t[L.W_INPUT].shape
        rows = t[L.INPUT].shape[0] * t[L.INPUT].shape[1]
        return rows * 4 * units * (size + units)


def _sat16(x):
    return np.clip(x, -32768, 32767)


def _quantized_step(p, x, h, c, w_in, w_rec, biases):
    """One time step of one batch row in TFLite Micro's integer arithmetic."""
    wide = p["kind"] == "s16"
    requant = mbqm64 if wide else mbqm32

    def fc(v, offset, w, bias, mult, shift):
        acc = w.astype(np.int64) @ (v.astype(np.int64) + offset)
        if bias is not None:
            acc = acc + bias.astype(np.int64)
        return _sat16(requant(acc, mult, shift))

    gates = []
    for g in range(4):
        pre = fc(x, -p["in_zp"], w_in[g], biases[g], p["in_mult"][g], p["in_shift"][g])
        pre = _sat16(pre + fc(h, -p["h_zp"], w_rec[g], None, p["rec_mult"][g], p["rec_shift"][g])).astype(np.int16)
        gates.append(L.tanh_s16(pre, *L.GATE_TANH) if g == 2 else L.sigmoid_s16(pre))
    i, f, cg, o = (v.astype(np.int64) for v in gates)
    c = _sat16(mbqm32(f * c.astype(np.int64), p["forget_mult"], p["forget_shift"]))
    c = _sat16(c + _sat16(mbqm32(i * cg, p["update_mult"], p["update_shift"])))
    if p["has_clip"]:
        c = np.clip(c, -p["cell_clip"], p["cell_clip"])
    c = c.astype(np.int16)
    cell = L.tanh_s16(c, p["tanh_mult"], p["tanh_shift"]).astype(np.int64)
    h = np.clip(mbqm32(cell * o, p["hidden_mult"], p["hidden_shift"]) + p["h_zp"], p["h_min"], p["h_max"])
    return h.astype(x.dtype), c


def _clamp_f32(x):
    return np.minimum(np.maximum(x, np.float32(-FLT_MAX)), np.float32(FLT_MAX)).astype(np.float32)


def _float_fc(v, w, bias):
    acc = np.zeros(w.shape[0], dtype=np.float32)
    for d in range(w.shape[1]):  # TFLite Micro's summation order, in float32
        acc = (acc + v[d] * w[:, d]).astype(np.float32)
    return _clamp_f32(acc + (bias if bias is not None else np.float32(0)))


def _float_step(p, x, h, c, w_in, w_rec, biases):
    gates = []
    with np.errstate(over="ignore", invalid="ignore"):
        for g in range(4):
            pre = (_float_fc(x, w_in[g], biases[g]) + _float_fc(h, w_rec[g], None)).astype(np.float32)
            gates.append(np.tanh(pre) if g == 2 else _float_sigmoid(pre))
        i, f, cg, o = gates
        c = (_clamp_f32(f * c) + _clamp_f32(i * cg)).astype(np.float32)
        if p["cell_clip"] > 0:
            clip = np.float32(p["cell_clip"])
            c = np.maximum(np.minimum(clip, c), -clip).astype(np.float32)
        h = _clamp_f32(np.tanh(c) * o)
    return h, c


def _float_sigmoid(x):
    """TFLite's float Logistic: 1 above 16.619047, exp(x) below -9, else 1 / (1 + exp(-x))."""
    middle = np.float32(1) / (np.float32(1) + np.exp(-x))
    return np.where(x > np.float32(16.619047164916992188), np.float32(1),
                    np.where(x < np.float32(-9.0), np.exp(x), middle)).astype(np.float32)
