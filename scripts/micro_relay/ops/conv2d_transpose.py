"""nn.conv2d_transpose: TFLite TRANSPOSE_CONV on NHWC data with OHWI weights and an optional bias.

Every input value is scattered into the output:
    out[b, iy*stride_h - pad_top + fy, ix*stride_w - pad_left + fx, oc] += x[b, iy, ix, ic] * w[oc, fy, fx, ic]
dropping taps that land outside the output, whose shape is the `output_shape` attribute (TFLite Micro reads
it from the output tensor). The bias is added after the scatter, then the activation clamp.

Integer semantics (TFLM_ARITHMETIC.md section 7): int8 scatters (q - in_zp) * f into a zeroed int32
scratch, then + bias, MBQM32 per output channel (axis 0, double in_s * w_s[c] / out_s), + out_zp, clamp.
int16x8 uses no zero points and an int64 scratch, widens an int16 bias to int64, and requantizes with
MBQM64. Float scatters into the zeroed output in the order (iy, ix, ic, fy, fx, oc), then adds the bias
(only when there is one) and clamps.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import ACTIVATION, ROUNDING, fail, out_type
from ._conv_common import (NO_PADDING, PAIR_OF_ONES, check_bias_headroom, check_index_range, check_wide_shifts,
                           exact_matmul, float_finish, Geometry, inputs3, prepare_convolution, requantize, window_attrs)


def _geometry(graph, node) -> Geometry:
    data, weight, _ = inputs3(graph, node)
    shape = tuple(node.attrs["output_shape"])
    if data.rank != 4 or weight.rank != 4 or len(shape) != 4:
        fail(graph, node, f"conv2d_transpose needs 4-D NHWC data, OHWI weight and output shape, got "
                          f"{list(data.shape)}, {list(weight.shape)} and {list(shape)}")
    (sh, sw), _, (top, left, _, _) = window_attrs(graph, node)
    n, h, w, c = data.shape
    oc, kh, kw, filter_c = weight.shape
    if filter_c != c or shape[3] != oc or shape[0] != n or min(shape) < 1:
        fail(graph, node, f"weight {list(weight.shape)} does not map input {list(data.shape)} to output {list(shape)}")
    check_index_range(graph, node, f"input height {h} at stride {sh}", h * sh, kh, top, shape[1])
    check_index_range(graph, node, f"input width {w} at stride {sw}", w * sw, kw, left, shape[2])
    return Geometry(n, h, w, c, shape[1], shape[2], oc, kh, kw, c, sh, sw, 1, 1, top, left)


@register
class Conv2DTranspose(OpDef):
    name = "nn.conv2d_transpose"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    attrs = {"strides": PAIR_OF_ONES, "padding": NO_PADDING, "output_shape": Attr(tuple), "activation": ACTIVATION,
             "rounding": ROUNDING}
    num_inputs = (2, 3)

    def infer(self, graph, node):
        g = _geometry(graph, node)
        data = graph.type_of(node.inputs[0])
        return [TensorType((g.batches, g.out_h, g.out_w, g.out_c), data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        g = _geometry(graph, node)
        params, bias_dtype = prepare_convolution(graph, node, g, 0)
        if params["kind"] == "f32":
            return params
        if params["kind"] == "s8":
            if bias_dtype not in (None, DType.INT32):
                fail(graph, node, f"int8 conv2d_transpose needs an int32 bias, got {bias_dtype.value}")
        else:
            if bias_dtype not in (None, DType.INT16, DType.INT64):
                fail(graph, node, f"int16 conv2d_transpose needs an int64 or int16 bias, got {bias_dtype.value}")
            if bias_dtype == DType.INT16 and not graph.tensors[node.inputs[2]].is_constant:
                fail(graph, node, "an int16 bias must be a constant (it is widened to int64 at compile time)")
            params["wide"] = True
            check_wide_shifts(graph, node, params["shift"])
        check_bias_headroom(graph, node, g.k_h * g.k_w * g.in_c, graph.type_of(node.inputs[0]).dtype,
                            params.get("wide", False))
        return params

    def reference(self, graph, node, p, inputs):
        data, weight, bias = (list(inputs) + [None])[:3]
        g: Geometry = p["geometry"]
        # Scatter onto a canvas large enough for every tap, then crop the output window out of it.
        canvas_h = max((g.in_h - 1) * g.stride_h + g.k_h, g.pad_top + g.out_h)
        canvas_w = max((g.in_w - 1) * g.stride_w + g.k_w, g.pad_left + g.out_w)
        rows = slice(None, (g.in_h - 1) * g.stride_h + 1, g.stride_h)
        cols = slice(None, (g.in_w - 1) * g.stride_w + 1, g.stride_w)
        if data.dtype == np.float32:
            canvas = np.zeros((g.batches, canvas_h, canvas_w, g.out_c), dtype=np.float32)
            # An output's terms come from input pixels in (iy, ix) order, i.e. taps in descending (fy, fx)
            # order, each input pixel's channels in ic order: the order TFLite Micro adds them in.
            for fy in reversed(range(g.k_h)):
                for fx in reversed(range(g.k_w)):
                    target = canvas[:, fy:, fx:][:, rows, cols]
                    for ic in range(g.in_c):
                        target += data[..., ic:ic + 1] * weight[:, fy, fx, ic]
            acc = canvas[:, g.pad_top:g.pad_top + g.out_h, g.pad_left:g.pad_left + g.out_w]
            return [float_finish(acc, bias, p, always_add_bias=False)]
        canvas = np.zeros((g.batches, canvas_h, canvas_w, g.out_c), dtype=np.int64)
        x = (data.astype(np.int64) - p["in_zp"]).reshape(-1, g.in_c)
        for fy in range(g.k_h):
            for fx in range(g.k_w):
                scattered = exact_matmul(x, weight[:, fy, fx, :].astype(np.int64).T)
                canvas[:, fy:, fx:][:, rows, cols] += scattered.reshape(g.batches, g.in_h, g.in_w, g.out_c)
        acc = canvas[:, g.pad_top:g.pad_top + g.out_h, g.pad_left:g.pad_left + g.out_w]
        return [requantize(acc, bias, p, data.dtype)]

    def macs(self, graph, node):
        g = _geometry(graph, node)
        return g.batches * g.in_h * g.in_w * g.in_c * g.k_h * g.k_w * g.out_c
