"""image.resize2d: TFLite RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR on NHWC tensors.

Attributes: size (out_h, out_w), method "nearest_neighbor" | "linear", align_corners, half_pixel_centers
(not both, as TFLite requires for bilinear). Which input rows and columns each output reads, and with what
weights, is fixed by the shapes: _resize.py computes those tables at compile time, exactly as TFLite Micro
computes them per pixel, and the kernels only index and blend:
- nearest: out[b, y, x, c] = in[b, rows[y], cols[x], c], any dtype (raw copy);
- linear, float32: v00 * (1-fy) * (1-fx) + v10 * fy * (1-fx) + v01 * (1-fy) * fx + v11 * fy * fx + 0.f, in
  that float order (R/resize_bilinear.h ResizeBilinear, fy and fx the fractional row and column);
- linear, int8/int16: s = sum of int64 v * wy * wx with 10-bit weights (1024 - w, w); out = (s +- 2^19) / 2^20,
  C division, + away from zero (ResizeBilinearInteger without TFLITE_SINGLE_ROUNDING).
Values are not rescaled, so integer outputs need the input's quantization (TFLite Micro checks nothing and
copies raw values; a converted model always has equal quantization). TFLite Micro has no int16 bilinear:
int16 runs TFLite's same integer template.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, kernel_suffix, out_type, types
from ._resize import (bilinear_float_table, bilinear_integer_table, integer_overflows, nearest_table)

METHODS = ("nearest_neighbor", "linear")


@register
class Resize2d(OpDef):
    name = "image.resize2d"
    attrs = {"size": Attr(tuple), "method": Attr(str, "linear", METHODS), "align_corners": Attr(bool, False),
             "half_pixel_centers": Attr(bool, False)}
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)

    def infer(self, graph, node):
        data = types(graph, node)[0]
        size = tuple(int(s) for s in node.attrs["size"])
        if data.rank != 4:
            fail(graph, node, f"image.resize2d needs a 4-D NHWC input, got {list(data.shape)}")
        if len(size) != 2 or min(size) < 1 or 0 in data.shape:
            fail(graph, node, f"image.resize2d size {list(size)} of {list(data.shape)} is not two positive sizes")
        n, _, _, c = data.shape
        return [TensorType((n, size[0], size[1], c), data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, out = types(graph, node)[0], out_type(graph, node)
        method, align, half = node.attrs.get("method", "linear"), node.attrs.get("align_corners", False), \
            node.attrs.get("half_pixel_centers", False)
        if data.dtype != out.dtype or data.dtype not in self.dtypes:
            fail(graph, node, f"image.resize2d runs int8, int16 or float32 to the same type, got "
                              f"{data.dtype.value} -> {out.dtype.value}")
        if not data.dtype.is_float and (data.quant is None or out.quant is None or data.quant != out.quant):
            fail(graph, node, f"image.resize2d needs equal input and output quantization (TFLite Micro copies and "
                              f"blends raw values): input {data.quant}, output {out.quant}")
        if align and half:
            fail(graph, node, "image.resize2d takes align_corners or half_pixel_centers, not both")
        n, in_h, in_w, c = data.shape
        _, out_h, out_w, _ = out.shape
        p = {"batches": n, "in_h": in_h, "in_w": in_w, "channels": c, "out_h": out_h, "out_w": out_w,
             "method": method, "kind": kernel_suffix(data.dtype), "elem_size": data.dtype.itemsize}
        for axis, size_in, size_out in (("row", in_h, out_h), ("col", in_w, out_w)):
            if method == "nearest_neighbor":
                lo = hi = nearest_table(size_in, size_out, align, half)
            elif data.dtype.is_float:
                lo, hi, frac = bilinear_float_table(size_in, size_out, align, half)
                p[f"{axis}_frac"] = frac
            else:
                if integer_overflows(size_in, size_out, align):
                    fail(graph, node, f"resizing {size_in} to {size_out} overflows TFLite's int32 coordinates")
                lo, hi, weight = bilinear_integer_table(size_in, size_out, align, half)
                p[f"{axis}_weight"] = weight
            if min(lo + hi) < 0 or max(lo + hi) >= size_in:
                fail(graph, node, f"resizing {size_in} to {size_out} {axis}s reads outside the input (as TFLite Micro "
                                  f"would) with align_corners={align}, half_pixel_centers={half}")
            p[f"{axis}_lo"], p[f"{axis}_hi"] = lo, hi
        return p

    def reference(self, graph, node, p, inputs):
        x, out = inputs[0], out_type(graph, node)
        rl, rh, cl, ch = (np.asarray(p[k]) for k in ("row_lo", "row_hi", "col_lo", "col_hi"))
        if p["method"] == "nearest_neighbor":
            return [x[:, rl][:, :, cl].astype(out.dtype.numpy)]
        v00, v10 = x[:, rl][:, :, cl], x[:, rh][:, :, cl]
        v01, v11 = x[:, rl][:, :, ch], x[:, rh][:, :, ch]
        if x.dtype == np.float32:
            fy = p["row_frac"].reshape(1, -1, 1, 1)
            fx = p["col_frac"].reshape(1, 1, -1, 1)
            one = np.float32(1)
            total = v00 * (one - fy) * (one - fx) + v10 * fy * (one - fx)
            total = total + v01 * (one - fy) * fx
            total = total + v11 * fy * fx
            return [(total + np.float32(0)).astype(np.float32)]
        wy = np.asarray(p["row_weight"], np.int64).reshape(1, -1, 1, 1)
        wx = np.asarray(p["col_weight"], np.int64).reshape(1, 1, -1, 1)
        full = np.int64(1 << 10)
        total = (v00.astype(np.int64) * (full - wy) * (full - wx) + v10.astype(np.int64) * wy * (full - wx)
                 + v01.astype(np.int64) * (full - wy) * wx + v11.astype(np.int64) * wy * wx)
        rounded = total + np.where(total > 0, 1 << 19, -(1 << 19))
        q = np.sign(rounded) * (np.abs(rounded) >> 20)  # C division truncates toward zero
        return [q.astype(out.dtype.numpy)]

    def macs(self, graph, node):
        return out_type(graph, node).size * (4 if node.attrs.get("method", "linear") == "linear" else 0)
