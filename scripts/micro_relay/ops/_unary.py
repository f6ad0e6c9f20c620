"""Helpers shared by the element-wise unary math ops (abs, exp, rsqrt, hard_swish, elu, gelu, ...).

float32: each op states its formula as TFLite Micro's float kernel computes it, one float32 operation at a
time; a libm call (expf, logf, erff, expm1f) is evaluated in double and rounded once to float32, which is
within one ulp of any good libm (the C calls the target's own libm, so the two may differ by that ulp).

int8: the output of a unary op is a function of one input byte, so prepare runs the op's integer arithmetic
(exactly as TFLite Micro does it, in `int8_values`) on all 256 inputs once and the kernel looks the answer
up (crt/src/mr_lut.c). That is how TFLite Micro itself runs int8 ELU; for ABS, RSQRT and HARD_SWISH the
table holds the same integers its per-element arithmetic gives.

int8 with rounding "single" (a QDQ model's op, passes/lower_qdq.py): the table is what the ONNX graph means,
dequantize -> the float32 op -> quantize, `quantized_once`: each input dequantized in float32, the op's
float32 formula, then x / scale rounded half to even (QuantizeLinear) and saturated. TFLite's integer
arithmetic would round twice (its own unit, then the model's scale).
"""

from __future__ import annotations

import math

import numpy as np

from ..ir.registry import OpDef
from ..ir.types import DType
from ._common import fail, kernel_suffix, out_type, types
from ._elementwise import same_dtype, unary_infer

FLT_MIN_NORMAL = 1.1754943508222875e-38
INT8_INPUTS = np.arange(-128, 128, dtype=np.int64)  # table index i holds the output for input i - 128


def libm(fn, x: np.ndarray) -> np.ndarray:
    """A float32 libm function as double `fn` rounded once to float32 (NaN and overflow pass through)."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(np.asarray(x, dtype=np.float64))).astype(np.float32)


def f32_ops():
    """Context that silences float warnings of IEEE arithmetic on NaN, inf and overflow (all intended)."""
    return np.errstate(all="ignore")


def check_scales(graph, node) -> tuple:
    """(input quant, output quant) of a quantized unary node; scales must be normal positive float32 values
    (TFLite Micro reads element 0 of per-channel parameters, and so do these ops)."""
    q_in, q_out = types(graph, node)[0].quant, out_type(graph, node).quant
    for what, q in (("input", q_in), ("output", q_out)):
        if not (math.isfinite(q.scale) and FLT_MIN_NORMAL <= q.scale <= 3.4028234663852886e38):
            fail(graph, node, f"{node.op} needs a positive, finite, normal {what} scale, got {q.scale}")
    return q_in, q_out


def quantized_once(float_fn, q_in, q_out) -> np.ndarray:
    """The int8 table of dequantize -> float_fn -> quantize for every raw input in INT8_INPUTS, as onnxruntime
    runs a QDQ unary node op by op: (q - zero) * scale in float32, float_fn in float32, then
    rint(y / scale) + zero (ties to even) saturated to int8."""
    with f32_ops():
        x = (INT8_INPUTS - q_in.zero_point).astype(np.float32) * np.float32(q_in.scale)
        y = np.asarray(float_fn(x.astype(np.float32)), dtype=np.float32)
        q = np.rint(y / np.float32(q_out.scale)).astype(np.float64) + q_out.zero_point
    q = np.where(np.isnan(q), q_out.zero_point, q)
    return np.clip(q, -128, 127).astype(np.int8)


class UnaryMathOp(OpDef):
    """A one-input element-wise op. Subclasses give `float_fn` (float32 numpy) and, for int8, `int8_values`
    (the output for every raw input in INT8_INPUTS, an int64 array before the clamp to int8); int16 ones
    override `prepare_int16` and `reference_int16`."""

    inplace = True
    dtypes: tuple = (DType.FLOAT32,)

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        dtype = same_dtype(graph, node, self.dtypes)
        params = {"kind": kernel_suffix(dtype), "size": out_type(graph, node).size}
        params.update(self.float_params(graph, node))
        if dtype == DType.INT8:
            q_in, q_out = check_scales(graph, node)
            params.update(self.prepare_int8(graph, node, q_in, q_out))
        elif dtype == DType.INT16:
            q_in, q_out = check_scales(graph, node)
            params.update(self.prepare_int16(graph, node, q_in, q_out))
        return params

    def float_params(self, graph, node) -> dict:
        """The float32 kernel's alpha and beta (mr_unary_f32_params)."""
        return {"alpha": 0.0, "beta": 0.0}

    def prepare_int8(self, graph, node, q_in, q_out) -> dict:
        if node.attrs.get("rounding") == "single":
            fp = self.float_params(graph, node)
            return {"table": quantized_once(lambda x: self.float_fn(fp, x), q_in, q_out), "valid_min": -128}
        values = self.int8_values(graph, node, q_in, q_out)
        return {"table": np.clip(values, -128, 127).astype(np.int8), "valid_min": -128}

    def prepare_int16(self, graph, node, q_in, q_out) -> dict:
        raise NotImplementedError

    def int8_values(self, graph, node, q_in, q_out) -> np.ndarray:
        raise NotImplementedError

    def float_fn(self, p: dict, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def reference_int16(self, p: dict, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def reference(self, graph, node, p, inputs):
        (x,) = inputs
        if p["kind"] == "f32":
            with f32_ops():
                return [np.asarray(self.float_fn(p, x.astype(np.float32)), dtype=np.float32).reshape(x.shape)]
        if p["kind"] == "s8":
            if np.any(x < p["valid_min"]):
                raise ValueError(f"{node.op} of an input below {p['valid_min']}: TFLite Micro fails at Invoke, the "
                                 f"kernel returns MR_ERR_DOMAIN")
            return [p["table"][x.astype(np.int64) + 128]]
        return [self.reference_int16(p, x.astype(np.int64)).astype(np.int16)]

    def macs(self, graph, node):
        return out_type(graph, node).size
