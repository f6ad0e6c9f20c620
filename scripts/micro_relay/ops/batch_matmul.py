"""nn.batch_matmul: TFLite BATCH_MATMUL, out[..., i, j] = sum_k lhs[..., i, k] * rhs[..., k, j], both operands
runtime tensors or constants (attention's Q K^T and A V), the batch dimensions broadcast (numpy rules).

adj_x / adj_y say an operand is stored transposed (lhs [..., depth, rows], rhs [..., cols, depth]); the kernel
reads it in place instead of transposing it into a buffer as TFLite Micro does (the sums are the same).
Arithmetic (M/batch_matmul.cc, R/batch_matmul.h), k ascending:
- float32: total = 0.f; total += lhs * rhs.
- int8: int32 total of (lhs - lhs_zp) * (rhs - rhs_zp); out = clamp(MBQM32(total, M, s) + out_zp), with
  M, s = QuantizeMultiplier(double(float(lhs_s * rhs_s)) / out_s) (GetQuantizedConvolutionMultipler).
- int16: zero points 0 (TFLite Micro checks), an int64 total, MBQM64 (s in [-31, 7]); clamp to int16.
There is no fused activation. Operands have rank 2 to 6 (TFLite Micro: 2 to 5); per-channel scales are
refused (TFLite Micro reads the first scale only).
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32, mbqm64, mbqm_single
from ..arith.multiplier import f32, quantize_multiplier
from ..ir.registry import Attr, OpDef, op_where, register
from ..ir.types import DType, TensorType
from ._binary import SUFFIX, broadcast_layout_n, input_dtype, positive_scales
from ._common import ROUNDING, fail, out_type, single_rounding, types
from ._elementwise import broadcast_shape

MAX_BATCH_DIMS = 4  # MR_BATCH_MATMUL_MAX_BATCH
MAX_DEPTH = {DType.INT8: 33025, DType.INT16: 1 << 16}  # 255^2 * depth fits int32; 2^30 * depth * 2^15 fits int64


def _matrices(graph, node) -> tuple[tuple, tuple, int, int, int]:
    """(lhs batch shape, rhs batch shape, rows, depth, cols), with the operand ranks and depths checked."""
    lhs, rhs = types(graph, node)
    for what, t in (("lhs", lhs), ("rhs", rhs)):
        if not 2 <= t.rank <= MAX_BATCH_DIMS + 2:
            fail(graph, node, f"batch_matmul {what} must have rank 2 to {MAX_BATCH_DIMS + 2}, got {list(t.shape)}")
    adj_x, adj_y = bool(node.attrs.get("adj_x", False)), bool(node.attrs.get("adj_y", False))
    rows, depth = lhs.shape[-2:][::-1] if adj_x else lhs.shape[-2:]
    rhs_depth, cols = rhs.shape[-2:][::-1] if adj_y else rhs.shape[-2:]
    if depth != rhs_depth:
        fail(graph, node, f"batch_matmul sums over {depth} lhs and {rhs_depth} rhs elements "
                          f"(shapes {list(lhs.shape)}, {list(rhs.shape)}, adj_x {adj_x}, adj_y {adj_y})")
    return lhs.shape[:-2], rhs.shape[:-2], rows, depth, cols


@register
class BatchMatmul(OpDef):
    name = "nn.batch_matmul"
    attrs = {"adj_x": Attr(bool, False), "adj_y": Attr(bool, False), "rounding": ROUNDING}
    num_inputs = (2, 2)
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)

    def infer(self, graph, node):
        lb, rb, rows, _, cols = _matrices(graph, node)
        batch = broadcast_shape(graph, node, lb, rb)
        return [TensorType((*batch, rows, cols), types(graph, node)[0].dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        dtype = input_dtype(graph, node, self.dtypes)
        lhs, rhs = types(graph, node)
        out = out_type(graph, node)
        if out.dtype != dtype:
            fail(graph, node, f"batch_matmul of {dtype.value} gives {dtype.value}, the output is {out.dtype.value}")
        lb, rb, rows, depth, cols = _matrices(graph, node)
        adj_x, adj_y = bool(node.attrs.get("adj_x", False)), bool(node.attrs.get("adj_y", False))
        batch = broadcast_layout_n([lb, rb], out.shape[:-2])
        p = {"kind": SUFFIX[dtype], "rows": rows, "depth": depth, "cols": cols, "adj_x": adj_x, "adj_y": adj_y,
             "batch_rank": batch["rank"], "batch_dims": batch["dims"],
             "lhs_batch_strides": [s * rows * depth for s in batch["strides"][0]],
             "rhs_batch_strides": [s * depth * cols for s in batch["strides"][1]],
             "lhs_row_step": 1 if adj_x else depth, "lhs_k_step": rows if adj_x else 1,
             "rhs_k_step": 1 if adj_y else cols, "rhs_col_step": depth if adj_y else 1}
        if dtype.is_float:
            return p
        for what, t in (("lhs", lhs), ("rhs", rhs), ("output", out)):
            if t.quant.per_channel and len(set(t.quant.scales)) > 1:
                fail(graph, node, f"batch_matmul {what} has per-channel scales (TFLite Micro reads one scale)")
        positive_scales(graph, node, lhs.quant, rhs.quant, out.quant)
        if depth > MAX_DEPTH[dtype]:
            fail(graph, node, f"{dtype.value} batch_matmul sums at most {MAX_DEPTH[dtype]} products, got {depth}")
        if dtype == DType.INT16 and (lhs.quant.zero_point, rhs.quant.zero_point, out.quant.zero_point) != (0, 0, 0):
            fail(graph, node, "int16 batch_matmul needs zero points of 0 (TFLite Micro checks)")
        single = node.attrs.get("rounding") == "single"  # the exact rescale, without TFLite's float32 product
        product = lhs.quant.scale * rhs.quant.scale if single else f32(lhs.quant.scale * rhs.quant.scale)
        mult, shift = quantize_multiplier(product / out.quant.scale, op_where(graph, node))
        if dtype == DType.INT16 and not -31 <= shift <= 7:
            fail(graph, node, f"int16 batch_matmul needs a rescale shift in [-31, 7], got {shift}")
        p.update(lhs_offset=-lhs.quant.zero_point, rhs_offset=-rhs.quant.zero_point,
                 out_offset=out.quant.zero_point, mult=mult, shift=shift,
                 single=single_rounding(graph, node, dtype, [shift]))
        return p

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        lhs, rhs = inputs
        lhs = np.swapaxes(lhs, -1, -2) if p["adj_x"] else lhs
        rhs = np.swapaxes(rhs, -1, -2) if p["adj_y"] else rhs
        if p["kind"] == "f32":
            total = np.zeros(out.shape, np.float32)
            for k in range(p["depth"]):  # one float32 multiply-add at a time, k ascending, as TFLite Micro
                total = (total + (lhs[..., :, k:k + 1] * rhs[..., k:k + 1, :]).astype(np.float32)).astype(np.float32)
            return [total.reshape(out.shape)]
        total = np.matmul(lhs.astype(np.int64) + p["lhs_offset"], rhs.astype(np.int64) + p["rhs_offset"])
        if p.get("single"):
            raw = mbqm_single(total, p["mult"], p["shift"]) + p["out_offset"]
        elif p["kind"] == "s8":
            raw = mbqm32(total, p["mult"], p["shift"]) + p["out_offset"]
        else:
            raw = mbqm64(total, p["mult"], p["shift"])
        return [np.clip(raw, out.dtype.min, out.dtype.max).astype(out.dtype.numpy).reshape(out.shape)]

    def macs(self, graph, node):
        return out_type(graph, node).size * _matrices(graph, node)[3]
