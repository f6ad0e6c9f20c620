"""mean: TFLite MEAN over a set of axes, keepdims or not. The common case is NHWC spatial (axes 1, 2).

Arithmetic (TFLM_ARITHMETIC.md section 7, R/reduce.h QuantizedMeanOrSum; section 8 for float):
- int8/int16: (M, s) = QuantizeMultiplier(double(in_s) / double(out_s)); n = elements per output;
  k = min(floor(log2 n), 32, 31 + s); M' = int32((int64(M) << k) / n) (truncating); s' = s - k;
  sum = int32 sum of raw q; out = clamp(MBQM32(int32(sum - in_zp * n), M', s') + out_zp) to the type.
- float: sum = 0.f + x in row-major order over the reduced axes, in float; out = sum / float(n).
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32, wrap32
from ..arith.multiplier import f32, quantize_multiplier
from ..ir.registry import Attr, OpDef, op_where, register
from ..ir.types import DType, TensorType
from ._common import fail, kernel_suffix, out_type, require_quant, types
from ._pooling import left_pad, row_major_steps

MAX_DIMS = 4  # MR_MEAN_MAX_DIMS


def _axes(graph, node) -> tuple[int, ...]:
    rank = types(graph, node)[0].rank
    axes = [int(a) for a in node.attrs["axis"]]
    if not axes or any(not -rank <= a < rank for a in axes):
        fail(graph, node, f"mean axes {axes} are not axes of a rank-{rank} tensor")
    return tuple(sorted({a % rank for a in axes}))


def _split(shape, axes) -> tuple[list[int], list[int], list[int], list[int]]:
    """Kept and reduced (dims, steps), size-1 axes dropped and neighbours of the same kind merged."""
    groups: list[list[int]] = []  # [dim, step, reduced]
    for axis, (dim, step) in enumerate(zip(shape, row_major_steps(shape))):
        if dim == 1:
            continue
        reduced = int(axis in axes)
        if groups and groups[-1][2] == reduced:  # contiguous layout: the outer step is dim * inner step
            groups[-1][0] *= dim
            groups[-1][1] = step
        else:
            groups.append([dim, step, reduced])
    kept = [g for g in groups if not g[2]]
    red = [g for g in groups if g[2]]
    return [g[0] for g in kept], [g[1] for g in kept], [g[0] for g in red], [g[1] for g in red]


@register
class Mean(OpDef):
    name = "mean"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    attrs = {"axis": Attr(tuple), "keepdims": Attr(bool, False)}

    def infer(self, graph, node):
        data = types(graph, node)[0]
        axes = _axes(graph, node)
        if node.attrs.get("keepdims", False):
            shape = tuple(1 if a in axes else d for a, d in enumerate(data.shape))
        else:
            shape = tuple(d for a, d in enumerate(data.shape) if a not in axes)
        return [TensorType(shape, data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, out = types(graph, node)[0], out_type(graph, node)
        if data.dtype != out.dtype or data.dtype not in (DType.INT8, DType.INT16, DType.FLOAT32):
            fail(graph, node, f"mean runs int8, int16 or float32 to the same type, got "
                              f"{data.dtype.value} -> {out.dtype.value}")
        axes = _axes(graph, node)
        kept_dims, kept_steps, red_dims, red_steps = _split(data.shape, axes)
        if len(kept_dims) > MAX_DIMS or len(red_dims) > MAX_DIMS:
            fail(graph, node, f"mean over axes {list(axes)} of {list(data.shape)} needs more than {MAX_DIMS} "
                              f"kept or reduced dimensions")
        count = int(np.prod([data.shape[a] for a in axes], dtype=np.int64))
        p = {"axes": axes, "count": count, "kind": kernel_suffix(data.dtype),
             "outer_dims": left_pad(kept_dims, MAX_DIMS, 1), "outer_steps": left_pad(kept_steps, MAX_DIMS, 0),
             "inner_dims": left_pad(red_dims, MAX_DIMS, 1), "inner_steps": left_pad(red_steps, MAX_DIMS, 0)}
        if data.dtype.is_float:
            return p
        require_quant(graph, node, data, "input")
        require_quant(graph, node, out, "output")
        mult, shift = quantize_multiplier(f32(data.quant.scale) / f32(out.quant.scale), where=op_where(graph, node))
        k = min(count.bit_length() - 1, 32, 31 + shift)
        p.update(in_zp=data.quant.zero_point, out_zp=out.quant.zero_point,
                 mult=int((mult << k) // count), shift=shift - k)
        return p

    def reference(self, graph, node, p, inputs):
        x, out = inputs[0], out_type(graph, node)
        axes = p["axes"]
        kept = [a for a in range(x.ndim) if a not in axes]
        rows = np.transpose(x, kept + list(axes)).reshape(-1, p["count"])  # reduced axes last, row-major
        if x.dtype == np.float32:
            total = np.zeros(rows.shape[0], np.float32)
            for j in range(p["count"]):  # one float32 add at a time, in TFLite's order
                total = (total + rows[:, j]).astype(np.float32)
            return [(total / np.float32(p["count"])).astype(np.float32).reshape(out.shape)]
        total = wrap32(rows.astype(np.int64).sum(axis=1))
        shifted = wrap32(total - np.int64(p["in_zp"]) * p["count"])
        q = mbqm32(shifted, p["mult"], p["shift"]) + p["out_zp"]
        return [np.clip(q, out.dtype.min, out.dtype.max).astype(out.dtype.numpy).reshape(out.shape)]

    def macs(self, graph, node):
        return types(graph, node)[0].size
