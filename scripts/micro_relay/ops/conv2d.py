"""nn.conv2d: TFLite CONV_2D on NHWC data with OHWI weights and an optional per-channel bias.

out[b, oy, ox, oc] = act(bias[oc] + sum over in-image taps (fy, fx), ic of w[oc, fy, fx, ic] * x[b, iy, ix, g*C + ic])
with iy = oy*stride_h - pad_top + fy*dilation_h (likewise x), C = w.shape[3] and g = oc // (OC / groups),
groups = in_channels / C (TFLite Micro infers groups the same way).

Integer semantics (TFLM_ARITHMETIC.md section 2): int8 sums f * (q - in_zp) in int32 over in-image taps only
(TFLite Micro skips padding taps, which is the same as padding (q - in_zp) with zeros), adds the raw int32
bias, requantizes per output channel with MBQM32 from the double in_s * w_s[c] / out_s, adds out_zp and
clamps. int16x8 uses no zero points; it accumulates in int32 with an int32 bias (or with no bias when the
model's quantized_bias_type is int32), otherwise in int64 with MBQM64. Float sums in the order fy, fx, ic from
0.f, adds bias (0.f when absent), then clamps.

Prepare folds bias - in_zp * sum(w) per channel when the weights are constant and refuses what the int8
kernels' exactness relies on (check_int8_kernel_limits). The kernels: kernels/portable/conv2d.py,
kernels/arm_dsp/conv2d.py, kernels/cmsis_nn/conv2d.py.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import ACTIVATION, ROUNDING, fail, out_type
from ._conv_common import (NO_PADDING, PAIR_OF_ONES, check_bias_headroom, check_int8_kernel_limits,
                           check_wide_shifts, exact_matmul, float_finish, folded_bias, Geometry, inputs3, inside_image,
                           prepare_convolution, requantize, window_attrs, windowed_size, windows)


def _geometry(graph, node) -> Geometry:
    data, weight, _ = inputs3(graph, node)
    if data.rank != 4 or weight.rank != 4:
        fail(graph, node, f"conv2d needs 4-D NHWC data and OHWI weight, got {list(data.shape)} and "
                          f"{list(weight.shape)}")
    (sh, sw), (dh, dw), (top, left, bottom, right) = window_attrs(graph, node)
    n, h, w, c = data.shape
    oc, kh, kw, filter_c = weight.shape
    if c % filter_c or oc % (c // filter_c):
        fail(graph, node, f"input channels {c} are not a whole number of groups of the weight's {filter_c}, "
                          f"or {oc} output channels do not split evenly over them")
    out_h = windowed_size(graph, node, h, kh, sh, dh, top, bottom)
    out_w = windowed_size(graph, node, w, kw, sw, dw, left, right)
    return Geometry(n, h, w, c, out_h, out_w, oc, kh, kw, filter_c, sh, sw, dh, dw, top, left)


@register
class Conv2D(OpDef):
    name = "nn.conv2d"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    attrs = {"strides": PAIR_OF_ONES, "dilation": PAIR_OF_ONES, "padding": NO_PADDING, "activation": ACTIVATION,
             "quantized_bias_type": Attr(str, "default", ("default", "int32", "int64")), "rounding": ROUNDING}
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
            check_int8_kernel_limits(graph, node, params)
            if bias_dtype not in (None, DType.INT32):
                fail(graph, node, f"int8 conv2d needs an int32 bias, got {bias_dtype.value}")
            weight_sums = graph.constant(node.inputs[1])
            if weight_sums is not None:
                weight_sums = weight_sums.astype(np.int64).reshape(g.out_c, -1).sum(axis=1)
                params["folded_bias"] = folded_bias(graph, node, params, weight_sums)
        else:
            if bias_dtype not in (None, DType.INT32, DType.INT64):
                fail(graph, node, f"int16 conv2d needs an int32 or int64 bias, got {bias_dtype.value}")
            # TFLite Micro accumulates in int64 unless the bias is int32, or there is no bias and the model's
            # quantized_bias_type says int32 (TFLM_ARITHMETIC.md section 2)
            params["wide"] = (bias_dtype != DType.INT32 if bias_dtype is not None
                              else node.attrs.get("quantized_bias_type", "default") != "int32")
            if params["wide"]:
                check_wide_shifts(graph, node, params["shift"])
        check_bias_headroom(graph, node, g.k_h * g.k_w * g.filter_c, graph.type_of(node.inputs[0]).dtype,
                            params.get("wide", False))
        return params

    def reference(self, graph, node, p, inputs):
        data, weight, bias = (list(inputs) + [None])[:3]
        g: Geometry = p["geometry"]
        groups = g.in_c // g.filter_c
        per_group = g.out_c // groups
        if data.dtype == np.float32:
            return [self._reference_float(g, groups, per_group, data, weight, bias, p)]
        x = windows(data.astype(np.int64) - p["in_zp"], g)  # padding taps become (q - zp) = 0, i.e. skipped
        x = x.reshape(-1, g.k_h, g.k_w, groups, g.filter_c).transpose(3, 0, 1, 2, 4)
        x = x.reshape(groups, -1, g.k_h * g.k_w * g.filter_c)
        w = weight.astype(np.int64).reshape(groups, per_group, -1)
        acc = np.stack([exact_matmul(x[i], w[i].T) for i in range(groups)], axis=1)  # (rows, groups, per_group)
        acc = acc.reshape(g.batches, g.out_h, g.out_w, g.out_c)
        return [requantize(acc, bias, p, data.dtype)]

    @staticmethod
    def _reference_float(g, groups, per_group, data, weight, bias, p):
        """Float in TFLite Micro's order: one (fy, fx, ic) term at a time for every output at once."""
        x = windows(data, g)  # (N, OH, OW, KH, KW, C)
        inside = inside_image(g)
        w = weight.reshape(groups, per_group, g.k_h, g.k_w, g.filter_c)
        acc = np.zeros((g.batches, g.out_h, g.out_w, groups, per_group), dtype=np.float32)
        group_channels = np.arange(groups) * g.filter_c
        for fy in range(g.k_h):
            for fx in range(g.k_w):
                mask = inside[:, :, :, fy, fx][..., None, None]
                for ic in range(g.filter_c):
                    term = x[:, :, :, fy, fx, group_channels + ic][..., None] * w[:, :, fy, fx, ic]
                    acc = acc + term if mask.all() else np.where(mask, acc + term, acc)
        acc = acc.reshape(g.batches, g.out_h, g.out_w, g.out_c)
        return float_finish(acc, bias, p, always_add_bias=True)

    def macs(self, graph, node):
        g = _geometry(graph, node)
        return g.batches * g.out_h * g.out_w * g.out_c * g.k_h * g.k_w * g.filter_c
