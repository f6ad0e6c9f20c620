"""nn.gru: ONNX GRU (forward, default activations sigmoid and tanh), float32.

Inputs: data [B, T, I] ([T, B, I] when time_major), w_input [3S, I] and w_recurrent [3S, S] with the gates
in ONNX's order z, r, h, bias_input [3S] (ONNX's Wb), bias_recurrent [3S] (Rb), h_state [B, S]. Outputs: the
sequence of hidden states [B, T, S] and the last one [B, S]. Per batch row and time step:
    z = sigmoid(W_z x + Wb_z + R_z h + Rb_z);  r = sigmoid(W_r x + Wb_r + R_r h + Rb_r)
    n = tanh(W_h x + Wb_h + r * (R_h h + Rb_h))     when linear_before_reset (PyTorch's GRU)
    n = tanh(W_h x + Wb_h + R_h (r * h) + Rb_h)     otherwise (ONNX's default)
    h = (1 - z) * n + z * h
Dot products sum from 0 in input order, then add the bias, in float32. Kernel: kernels/portable/gru.py.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, types


@register
class Gru(OpDef):
    name = "nn.gru"
    attrs = {"time_major": Attr(bool, False), "linear_before_reset": Attr(bool, False)}
    num_inputs = (6, 6)
    dtypes = (DType.FLOAT32,)

    def infer(self, graph, node):
        data, w, r, wb, rb, h = types(graph, node)
        if data.rank != 3 or h.rank != 2:
            fail(graph, node, f"GRU needs a 3-D input and a 2-D state, got {list(data.shape)} and {list(h.shape)}")
        time_major = node.attrs.get("time_major", False)
        batch, units = (data.shape[1] if time_major else data.shape[0]), h.shape[1]
        expected = ((3 * units, data.shape[2]), (3 * units, units), (3 * units,), (3 * units,), (batch, units))
        for t, shape, what in zip((w, r, wb, rb, h), expected, ("w_input", "w_recurrent", "bias_input",
                                                                "bias_recurrent", "h_state")):
            if t.shape != shape:
                fail(graph, node, f"GRU {what} has shape {list(t.shape)}, expected {list(shape)}")
        out = TensorType((data.shape[0], data.shape[1], units), data.dtype, out_type(graph, node).quant)
        return [out, TensorType(h.shape, h.dtype)]

    def prepare(self, graph, node):
        if any(t.dtype != DType.FLOAT32 for t in types(graph, node)):
            fail(graph, node, "GRU supports float32 only")
        data, h = types(graph, node)[0], types(graph, node)[5]
        time_major = bool(node.attrs.get("time_major", False))
        return {"kind": "f32", "time_major": int(time_major), "batch": h.shape[0],
                "time": data.shape[0] if time_major else data.shape[1], "input_size": data.shape[2],
                "units": h.shape[1], "linear_before_reset": int(bool(node.attrs.get("linear_before_reset", False)))}

    def reference(self, graph, node, p, inputs):
        data, w, r, wb, rb, h0 = inputs
        units = p["units"]
        x = data if p["time_major"] else data.transpose(1, 0, 2)
        hs = h0.copy()
        out = np.zeros((p["time"], p["batch"], units), dtype=np.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            for b in range(p["batch"]):
                h = hs[b]
                for t in range(p["time"]):
                    h = _step(p, x[t, b], h, w, r, wb, rb)
                    out[t, b] = h
                hs[b] = h
        out = out if p["time_major"] else out.transpose(1, 0, 2)
        return [np.ascontiguousarray(out), hs]

    def macs(self, graph, node):
        data, w, r = types(graph, node)[:3]
        return data.shape[0] * data.shape[1] * (w.size + r.size)


def _dot(v, w, bias):
    acc = np.zeros(w.shape[0], dtype=np.float32)
    for d in range(w.shape[1]):  # summation order of the C kernel, in float32
        acc = (acc + v[d] * w[:, d]).astype(np.float32)
    return (acc + bias).astype(np.float32)


def _sigmoid(x):
    return (np.float32(1) / (np.float32(1) + np.exp(-x))).astype(np.float32)


def _step(p, x, h, w, r, wb, rb):
    s = p["units"]
    gx = _dot(x, w, wb)
    if p["linear_before_reset"]:
        gh = _dot(h, r, rb)
        z, rr = _sigmoid(gx[:s] + gh[:s]), _sigmoid(gx[s:2 * s] + gh[s:2 * s])
        n = np.tanh(gx[2 * s:] + rr * gh[2 * s:])
    else:
        gh = _dot(h, r[:2 * s], rb[:2 * s])
        z, rr = _sigmoid(gx[:s] + gh[:s]), _sigmoid(gx[s:2 * s] + gh[s:2 * s])
        n = np.tanh(gx[2 * s:] + _dot((rr * h).astype(np.float32), r[2 * s:], rb[2 * s:]))
    return ((np.float32(1) - z) * n + z * h).astype(np.float32)
