"""Helpers shared by the element-wise ops: broadcasting, dtype checks, quantized rounding.

Broadcasting follows numpy (and TFLite's BroadcastBinaryOpSimple, up to 6 dimensions): shapes align on the
right, a dimension of 1 stretches. The C kernels do not walk the full shape: `broadcast_layout` merges
neighbouring axes that broadcast the same way and drops size-1 axes, so `[1,2,12,64] - [64]` runs as a
[24, 64] loop with input strides (64, 1) and (0, 1). Equal shapes need no layout at all (rank 0), and the
kernels then take their flat fast path.
"""

from __future__ import annotations

import math

import numpy as np

from ..arith.fixedpoint import SINGLE_LIMIT, mbqm32, wrap32
from ..arith.multiplier import f32, quantize_multipliers, round_half_away, round_to_int32_saturating
from ..ir.registry import OpDef, op_where
from ..ir.types import DType, TensorType
from ._common import (ACTIVATION, ROUNDING, apply_clamp, clamp_range, fail, kernel_suffix, out_type, require_quant,
                      single_rounding, types)

MAX_BROADCAST_RANK = 6


def broadcast_shape(graph, node, a: tuple, b: tuple) -> tuple:
    """numpy's broadcast of two static shapes, or a CompileError naming the node."""
    rank = max(len(a), len(b))
    if rank > MAX_BROADCAST_RANK:
        fail(graph, node, f"broadcasting supports at most {MAX_BROADCAST_RANK} dimensions, got {rank}")
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            fail(graph, node, f"shapes {list(a)} and {list(b)} do not broadcast")
        out.append(max(x, y))
    return tuple(out)


def broadcast_layout(a: tuple, b: tuple, out: tuple) -> dict:
    """Collapsed loop nest for out = f(a, b): dims and per-input element strides (0 where broadcast).

    Rank 0 means both inputs already have the output's element count and order (the flat fast path)."""
    if math.prod(a) == math.prod(out) and math.prod(b) == math.prod(out):
        return {"rank": 0, "dims": [], "a_strides": [], "b_strides": []}
    rank = len(out)
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    axes = []  # (dim, a present, b present), size-1 output axes dropped, same patterns merged
    for dim, x, y in zip(out, a, b):
        if dim == 1:
            continue
        kind = (x == dim, y == dim)
        if axes and axes[-1][1:] == kind:
            axes[-1] = (axes[-1][0] * dim, *kind)
        else:
            axes.append((dim, *kind))
    if not axes:
        axes = [(1, True, True)]
    dims = [d for d, _, _ in axes]

    def strides(present):
        result, step = [], 1
        for (dim, *_), here in zip(reversed(axes), reversed(present)):
            result.append(step if here else 0)
            step *= dim if here else 1
        return result[::-1]

    return {"rank": len(dims), "dims": dims, "a_strides": strides([p for _, p, _ in axes]),
            "b_strides": strides([p for _, _, p in axes])}


def same_dtype(graph, node, allowed: tuple) -> DType:
    """The dtype every input and the output share, which must be one of `allowed`."""
    dtypes = {t.dtype for t in types(graph, node) if t is not None} | {out_type(graph, node).dtype}
    if len(dtypes) != 1:
        fail(graph, node, f"inputs and output must share one dtype, got {sorted(d.value for d in dtypes)}")
    dtype = dtypes.pop()
    if dtype not in allowed:
        fail(graph, node, f"{node.op} supports {[d.value for d in allowed]}, got {dtype.value}")
    if not dtype.is_float:
        for t, what in ((t, f"input {i}") for i, t in enumerate(types(graph, node))):
            require_quant(graph, node, t, what)
        require_quant(graph, node, out_type(graph, node), "output")
    return dtype


def unary_infer(graph, node) -> list[TensorType]:
    """Element-wise unary ops: the output has the input's shape; dtype and quantization are declared."""
    (data,) = types(graph, node)[:1]
    declared = out_type(graph, node)
    return [TensorType(data.shape, declared.dtype, declared.quant)]


def round_half_away_array(x: np.ndarray) -> np.ndarray:
    """std::round on float32 values, exact: in float64, x + 0.5 cannot round."""
    x = np.asarray(x, dtype=np.float64)
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def float_to_quantized(value: float, scale: float, zero_point: int, dtype: DType) -> int:
    """TFLM's FloatToQuantizedType: clamp(round(float(value) / float(scale)) + zp) (float division)."""
    q = round_to_int32_saturating(f32(f32(value) / f32(scale))) + zero_point
    return int(min(max(q, dtype.min), dtype.max))


def float_input_multiplier(scale: float, integer_bits: int) -> tuple[int, int, int]:
    """LOGISTIC/TANH int8 prepare: (M, left shift, radius) from frexp(in_s * 2^(31 - bits)).

    Unlike QuantizeMultiplier there is no renormalization of M = 2^31: a float32 scale cannot get there."""
    q, shift = math.frexp(float(scale) * float(1 << (31 - integer_bits)))
    multiplier = round_half_away(q * (1 << 31))
    radius = math.floor(((1 << integer_bits) - 1) * float(1 << (31 - integer_bits)) / 2.0 ** shift)
    # int8 inputs give |q - zp| <= 255. A tiny scale makes the radius huge and the shift below -31: both are
    # clamped where nothing changes for such inputs (no |x| reaches 256; SRDHM(x, M) <= 255 rounds to 0
    # either way), so the C never holds an out-of-range literal or shifts an int32 by 32 or more.
    return multiplier, max(shift, -31), min(radius, 256)


class BinaryOp(OpDef):
    """add / subtract / multiply: numpy broadcasting, fused activation, int8, int16 and float32.

    Subclasses give the float formula (`float_fn`), the quantized multipliers (`quant_params`) and the
    quantized formula (`quant_fn`, on int64 arrays of raw values). Input 0 may share the output's bytes:
    the kernels read a[i] before writing out[i], and a has the output's shape whenever the sizes match."""

    attrs = {"activation": ACTIVATION, "rounding": ROUNDING}
    num_inputs = (2, 2)
    inplace = True
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)

    def infer(self, graph, node):
        a, b = types(graph, node)
        shape = broadcast_shape(graph, node, a.shape, b.shape)
        return [TensorType(shape, a.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        dtype = same_dtype(graph, node, self.dtypes)
        a, b = types(graph, node)
        out = out_type(graph, node)
        lo, hi = clamp_range(graph, node)
        params = {"kind": kernel_suffix(dtype), "size": out.size, "act_min": lo, "act_max": hi,
                  "layout": broadcast_layout(a.shape, b.shape, out.shape)}
        if not dtype.is_float:
            for t in (a, b, out):
                if not t.quant.scale > 0:
                    fail(graph, node, f"{node.op} needs positive scales, got {t.quant.scale}")
            params.update(self.quant_params(graph, node, a.quant, b.quant, out.quant, dtype))
        return params

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        a, b = np.broadcast_arrays(*inputs)
        if out.dtype.is_float:
            return [apply_clamp(self.float_fn(a.astype(np.float32), b.astype(np.float32)), p["act_min"],
                                p["act_max"], np.float32).reshape(out.shape)]
        raw = self.quant_fn(p, a.astype(np.int64), b.astype(np.int64))
        return [apply_clamp(raw, p["act_min"], p["act_max"], out.dtype.numpy).reshape(out.shape)]

    def macs(self, graph, node):
        return out_type(graph, node).size


def addsub_params(graph, node, qa, qb, qo, dtype: DType) -> dict:
    """ADD/SUB multipliers: inputs rescaled to 2*max(s1, s2) after a left shift of 20 (int8) or 15 (int16).

    The ratios are in double for both ops. (TFLM_ARITHMETIC.md says SUB computes them in float; the golden
    outputs of the single_op_int16 SUB models and the TFLite Micro we test against both say double.)
    A node with rounding "single" gets addsub_single_params instead."""
    if single_rounding(graph, node, dtype, ()):
        return addsub_single_params(graph, node, qa, qb, qo)
    left_shift = 15 if dtype == DType.INT16 else 20
    twice = 2 * max(qa.scale, qb.scale)
    ratios = [qa.scale / twice, qb.scale / twice, twice / ((1 << left_shift) * qo.scale)]
    if not 0 < ratios[2] < 1:
        fail(graph, node, f"output scale {qo.scale} is too small for input scales {qa.scale}, {qb.scale} "
                          f"(TFLite Micro requires an output rescale below 1)")
    (ma, mb, mo), (sa, sb, so) = quantize_multipliers(ratios, where=op_where(graph, node))
    return {"left_shift": left_shift, "a_offset": -qa.zero_point, "b_offset": -qb.zero_point,
            "out_offset": qo.zero_point, "a_mult": int(ma), "a_shift": int(sa), "b_mult": int(mb), "b_shift": int(sb),
            "out_mult": int(mo), "out_shift": int(so)}


def addsub_single_params(graph, node, qa, qb, qo) -> dict:
    """Single rounding: out = round((q1 - z1) s1/so +- (q2 - z2) s2/so) + zo as one int64 sum,
    ((q1 - z1) M1 +- (q2 - z2) M2 + 2^(T-1)) >> T, with both ratios on one exponent T: Mi = round(si/so 2^T)
    and the larger below 2^31. Each Mi is then within half a unit of 2^-T of its ratio, so the sum is within
    255 2^-T of the exact one (T >= 31 for ratios below 1). |q - z| <= 255 keeps each product below 2^39."""
    ratios = (qa.scale / qo.scale, qb.scale / qo.scale)
    if not all(math.isfinite(r) for r in ratios):
        fail(graph, node, f"{node.op} rescale ratios {ratios} (from the quantization scales) are not finite")
    total = min(62, 31 - max(math.frexp(r)[1] for r in ratios))
    if max(round_half_away(r * 2.0 ** total) for r in ratios) >= 1 << 31:  # a ratio rounding up to 2^31
        total -= 1
    if total < 1:
        fail(graph, node, f"{node.op} input scales {qa.scale}, {qb.scale} are 2^30 or more times the output's "
                          f"{qo.scale}, beyond single-rounding requantization")
    ma, mb = (round_half_away(r * 2.0 ** total) for r in ratios)
    return {"a_offset": -qa.zero_point, "b_offset": -qb.zero_point, "out_offset": qo.zero_point,
            "a_mult": ma, "b_mult": mb, "single_shift": total}


def addsub_fn(p: dict, a: np.ndarray, b: np.ndarray, sign: int) -> np.ndarray:
    """out = RDBPOT(SRDHM(a' +- b', Mo), -so) + zo with x' = RDBPOT(SRDHM((q - z) << ls, M), -s), or the one
    rounding of addsub_single_params."""
    if p.get("single_shift"):
        total = p["single_shift"]
        value = ((a + p["a_offset"]) * p["a_mult"] + sign * (b + p["b_offset"]) * p["b_mult"] +
                 (np.int64(1) << (total - 1))) >> total
        return np.clip(value, -SINGLE_LIMIT, SINGLE_LIMIT) + p["out_offset"]
    scaled_a = mbqm32(wrap32((a + p["a_offset"]) << p["left_shift"]), p["a_mult"], p["a_shift"])
    scaled_b = mbqm32(wrap32((b + p["b_offset"]) << p["left_shift"]), p["b_mult"], p["b_shift"])
    return mbqm32(wrap32(scaled_a + sign * scaled_b), p["out_mult"], p["out_shift"]) + p["out_offset"]
