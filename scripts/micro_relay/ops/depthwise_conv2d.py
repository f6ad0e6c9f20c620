"""nn.depthwise_conv2d: TFLite DEPTHWISE_CONV_2D on NHWC data with weights [1, KH, KW, C*m].

out[b, oy, ox, ic*m + j] = act(sum over in-image taps (fy, fx) of w[0, fy, fx, ic*m + j] * x[b, iy, ix, ic] + bias)
with iy = oy*stride_h - pad_top + fy*dilation_h (likewise x) and m the depth multiplier (an attribute, as in
TFLite Micro, which does not infer it).

Integer semantics (TFLM_ARITHMETIC.md section 2): as conv2d, per output channel on weight axis 3. int8 sums
f * (q - in_zp) in int32 over in-image taps; int16x8 uses no zero points and always accumulates in int64
(TFLite Micro reads the bias as int64) with MBQM64. Float sums fy, fx from 0.f, adds bias (0.f when absent).

Prepare folds bias - in_zp * sum(w) per channel when the weights are constant and refuses what the int8
kernels' exactness relies on. The kernels: kernels/portable/depthwise_conv2d.py (the window walk),
kernels/arm_dsp/depthwise_conv2d.py (strips in scratch), kernels/cmsis_nn/depthwise_conv2d.py.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import ACTIVATION, ROUNDING, fail, out_type
from ._conv_common import (NO_PADDING, PAIR_OF_ONES, check_bias_headroom, check_int8_kernel_limits,
                           check_wide_shifts, float_finish, folded_bias, Geometry, inputs3, inside_image,
                           prepare_convolution, requantize, window_attrs, windowed_size, windows)


def _geometry(graph, node) -> Geometry:
    """The window walk; filter_c holds the depth multiplier."""
    data, weight, _ = inputs3(graph, node)
    if data.rank != 4 or weight.rank != 4 or weight.shape[0] != 1:
        fail(graph, node, f"depthwise_conv2d needs 4-D NHWC data and a [1, KH, KW, C*m] weight, got "
                          f"{list(data.shape)} and {list(weight.shape)}")
    (sh, sw), (dh, dw), (top, left, bottom, right) = window_attrs(graph, node)
    multiplier = node.attrs.get("depth_multiplier", 1)
    n, h, w, c = data.shape
    _, kh, kw, oc = weight.shape
    if multiplier < 1 or oc != c * multiplier:
        fail(graph, node, f"weight has {oc} channels, expected input channels {c} x depth_multiplier {multiplier}")
    out_h = windowed_size(graph, node, h, kh, sh, dh, top, bottom)
    out_w = windowed_size(graph, node, w, kw, sw, dw, left, right)
    return Geometry(n, h, w, c, out_h, out_w, oc, kh, kw, multiplier, sh, sw, dh, dw, top, left)


@register
class DepthwiseConv2D(OpDef):
    name = "nn.depthwise_conv2d"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    attrs = {"strides": PAIR_OF_ONES, "dilation": PAIR_OF_ONES, "padding": NO_PADDING,
             "depth_multiplier": Attr(int, 1), "activation": ACTIVATION, "rounding": ROUNDING}
    num_inputs = (2, 3)

    def infer(self, graph, node):
        g = _geometry(graph, node)
        data = graph.type_of(node.inputs[0])
        return [TensorType((g.batches, g.out_h, g.out_w, g.out_c), data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        g = _geometry(graph, node)
        params, bias_dtype = prepare_convolution(graph, node, g, 3)
        if params["kind"] == "f32":
            return params
        if params["kind"] == "s8":
            check_int8_kernel_limits(graph, node, params)
            if bias_dtype not in (None, DType.INT32):
                fail(graph, node, f"int8 depthwise_conv2d needs an int32 bias, got {bias_dtype.value}")
            weights = graph.constant(node.inputs[1])
            if weights is not None:
                sums = weights.astype(np.int64).reshape(-1, g.out_c).sum(axis=0)
                params["folded_bias"] = folded_bias(graph, node, params, sums)
        else:
            if bias_dtype not in (None, DType.INT64):
                fail(graph, node, f"int16 depthwise_conv2d needs an int64 bias (TFLite Micro reads it as int64), "
                                  f"got {bias_dtype.value}")
            params["wide"] = True
            check_wide_shifts(graph, node, params["shift"])
        check_bias_headroom(graph, node, g.k_h * g.k_w, graph.type_of(node.inputs[0]).dtype,
                            params.get("wide", False))
        return params

    def reference(self, graph, node, p, inputs):
        data, weight, bias = (list(inputs) + [None])[:3]
        g: Geometry = p["geometry"]
        if data.dtype == np.float32:
            x = np.repeat(windows(data, g), g.filter_c, axis=-1)  # (N, OH, OW, KH, KW, OC)
            inside = inside_image(g)
            acc = np.zeros((g.batches, g.out_h, g.out_w, g.out_c), dtype=np.float32)
            for fy in range(g.k_h):  # TFLite Micro's order: fy, then fx
                for fx in range(g.k_w):
                    term = x[:, :, :, fy, fx, :] * weight[0, fy, fx, :]
                    mask = inside[:, :, :, fy, fx][..., None]
                    acc = acc + term if mask.all() else np.where(mask, acc + term, acc)
            return [float_finish(acc, bias, p, always_add_bias=True)]
        x = windows(data.astype(np.int64) - p["in_zp"], g)  # padding taps contribute (q - zp) = 0
        x = np.repeat(x, g.filter_c, axis=-1)
        acc = np.einsum("nyxhwc,hwc->nyxc", x, weight[0].astype(np.int64))
        return [requantize(acc, bias, p, data.dtype)]

    def macs(self, graph, node):
        g = _geometry(graph, node)
        return g.batches * g.out_h * g.out_w * g.out_c * g.k_h * g.k_w
