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

The int8 kernel (crt/src/mr_conv2d.c; mr_conv2d_dsp.c on cores with the DSP extension) picks its loop
structure from the geometry in the parameter struct: a tiled matrix product for 1x1 stride-1 unpadded
single-group layers, a clipped window walk otherwise (gathered windows on DSP cores). Prepare folds
bias - in_zp * sum(w) per channel when the weights are constant and refuses what the kernel's exactness relies
on (check_int8_kernel_limits).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import ACTIVATION, fail, out_type
from ._conv_common import (NO_PADDING, PAIR_OF_ONES, check_int8_kernel_limits, check_wide_shifts, emit_call,
                           exact_matmul, float_finish, folded_bias, Geometry, inputs3, inside_image, is_pointwise,
                           prepare_convolution, requantize, window_attrs, window_overlap_delta, windowed_size,
                           windows)
from ._overlap import pointwise_delta
from . import _cmsis_nn, _cost

# The arena scratch of the int8 kernel's DSP path (crt/src/mr_conv2d_dsp.c), reserved on every target because the
# compiler does not know whether the core has the DSP extension: slots of 4 bytes per window value (the window
# padded with zeros to a multiple of 4 values; a 3x3x64 window: 2,304 B), one for a channel pair's filters
# extended to int16, the others each a pair of gathered windows, plus an int8 staging copy of one window when
# filter_c is not a multiple of 4. Pointwise layers take the weight slot on top of at most MR_POINTWISE_TILE
# pixels within DSP_TILE_BYTES; other layers take at most 8 slots (ResNet-8's 3x3x16 layers set its arena), at
# least 2 (the kernel needs them) and at most a band's pixel pairs plus one (a band: as many whole output rows
# as the slots hold when there is one group, else one row). Each tile pays a
# setup per output-channel pair, so larger tiles are faster (ResNet-8's 3x3x16 windows: 2 pixels a tile at
# 1,024 B, 16 at 8,192 B). The scratch lives only during the layer but can set the arena: ResNet-8's grew from
# 34,368 to 38,400 B (TFLite Micro's head plan: 49,152 B) for 20.86 -> 17.56 M instructions on Cortex-M4.
DSP_TILE_BYTES = 8192
POINTWISE_TILE = 16


def dsp_scratch_bytes(g: Geometry) -> int:
    """Bytes of arena scratch mr_conv2d_s8 gets for geometry g."""
    pointwise = is_pointwise(g)
    # mr_conv2d_s8_pw8 pads to 8 values, mr_conv2d_s8_pw16 to 16
    n = (8 if g.in_c <= 8 else 16 if g.in_c <= 16 else g.in_c) if pointwise else g.k_h * g.k_w * g.filter_c
    pair = 16 * ((n + 3) // 4)  # two pixels' windows
    stage = 0 if pointwise or g.filter_c % 4 == 0 else 4 * ((n + 3) // 4)
    row_pixels = g.batches * g.out_h * g.out_w if pointwise else g.out_w
    pairs = min(max(1, DSP_TILE_BYTES // pair), POINTWISE_TILE // 2, (row_pixels + 1) // 2)
    if pointwise and g.in_c <= 8:  # mr_conv2d_s8_pw8: no weight slot
        return pairs * pair + stage
    if pointwise and g.in_c <= 16:  # mr_conv2d_s8_pw16: every channel pair's weight slot up to 64 channels
        return (pairs + ((g.out_c + 1) // 2 if g.out_c <= 64 else 1)) * pair
    if not pointwise:
        pairs = min(max(2, DSP_TILE_BYTES // pair), POINTWISE_TILE // 2) - 1
        if g.in_c == g.filter_c and 2 * pairs >= row_pixels:  # one group: a tile of whole rows (a band)
            row_pixels *= 2 * pairs // row_pixels
        pairs = min(pairs, (row_pixels + 1) // 2)
    return (pairs + 1) * pair + stage


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
    attrs = {"strides": PAIR_OF_ONES, "dilation": PAIR_OF_ONES, "padding": NO_PADDING, "activation": ACTIVATION,
             "quantized_bias_type": Attr(str, "default", ("default", "int32", "int64"))}
    num_inputs = (2, 3)
    kernels = ("conv2d", "conv2d_dsp")

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

    def overlap_delta(self, graph, node, p):
        """The int8 pointwise path works in tiles of at most 16 pixels, every other path in output rows. The
        int16 and float kernels have no tiled path today; for a pointwise geometry they also get the tile
        bound, so that giving them one later keeps the declared overlap safe. None on CMSIS-NN (ops/_cmsis_nn.py)."""
        if _cmsis_nn.uses_cmsis_nn(graph, node, p):
            return None
        g: Geometry = p["geometry"]
        itemsize = graph.type_of(node.inputs[0]).dtype.itemsize
        if not is_pointwise(g):
            return window_overlap_delta(g, itemsize)
        tiles = pointwise_delta(g.batches * g.in_h * g.in_w, g.in_c, g.out_c, itemsize)
        return tiles if p["kind"] == "s8" else min(tiles, window_overlap_delta(g, itemsize))

    def macs(self, graph, node):
        g = _geometry(graph, node)
        return g.batches * g.out_h * g.out_w * g.out_c * g.k_h * g.k_w * g.filter_c

    def scratch_bytes(self, graph, node, params):
        """int8: the windows the DSP path gathers (dsp_scratch_bytes), or CMSIS-NN's buffer on that backend; the
        other kernels need none."""
        if _cmsis_nn.uses_cmsis_nn(graph, node, params):
            return _cmsis_nn.buffer_bytes(node, params)
        return dsp_scratch_bytes(params["geometry"]) if params["kind"] == "s8" else 0

    def kernel_path(self, graph, node, p):
        if _cmsis_nn.uses_cmsis_nn(graph, node, p):
            return _cmsis_nn.kernel_path(node, p)
        g: Geometry = p["geometry"]
        if p["kind"] != "s8":
            return {}
        n = g.k_h * g.k_w * g.filter_c
        pw8 = is_pointwise(g) and g.in_c <= 8
        pairs = dsp_scratch_bytes(g) // (16 * (((max(n, 8) if is_pointwise(g) else n) + 3) // 4)) - (not pw8)
        if pw8:
            return {"dsp": f"matrix product: {g.in_c}-value pixel rows padded to 8 and extended to int16 in "
                           f"scratch, {2 * pairs} pixels a tile, 1 channel's weights in registers a pass (SMLAD)",
                    "portable": "matrix product: tiles of 16 pixels, 4 channels a pass"}
        if is_pointwise(g) and g.in_c <= 16:
            once = g.out_c <= 64  # every channel pair's weights extended once (mr_conv2d_s8_pw16)
            pairs = dsp_scratch_bytes(g) // 64 - ((g.out_c + 1) // 2 if once else 1)
            weights = "all channels' weights extended to int16 in scratch once" if once else \
                "2 channels' weights extended to int16 in scratch a tile"
            return {"dsp": f"matrix product: {g.in_c}-value pixel rows padded to 16 and extended to int16 in scratch, "
                           f"{2 * pairs} pixels a tile, {weights}, 2 pixels x 2 channels a block, 4 blocks of 4 "
                           f"values straight (SMLAD)",
                    "portable": "matrix product: tiles of 16 pixels, 4 channels a pass"}
        if is_pointwise(g):
            return {"dsp": f"matrix product: {g.in_c}-value pixel rows extended to int16 in scratch, {2 * pairs} "
                           f"pixels a tile, 2 channels' weights extended to int16 in scratch a tile, 2 pixels x 2 "
                           f"channels a block (SMLAD)",
                    "portable": "matrix product: tiles of 16 pixels, 4 channels a pass"}
        staged = "" if g.filter_c % 4 == 0 else ", staged as int8 first"
        return {"dsp": f"im2col: {n}-value windows extended to int16 in scratch{staged}, {2 * pairs} pixels a tile, "
                       f"2 channels' weights extended to int16 in scratch a tile, 2 pixels x 2 channels a block "
                       f"(SMLAD)",
                "portable": "window walk, 4 channels a pass, window clipped to the image once"}

    def estimate(self, graph, node, p):
        """int8 on our kernel only (ops/_cost.py)."""
        if p["kind"] != "s8" or _cmsis_nn.uses_cmsis_nn(graph, node, p):
            return None
        return _cost.conv2d_estimate(p)

    def emit(self, ctx, node, p):
        if _cmsis_nn.uses_cmsis_nn(ctx.graph, node, p):
            return _cmsis_nn.emit_convolution(ctx, node, p)
        if p["kind"] != "s8":
            return emit_call(ctx, node, p, "mr_conv2d")
        return emit_call(ctx, node, dict(p, scratch_bytes=dsp_scratch_bytes(p["geometry"])), "mr_conv2d",
                         scratch=True, suffix=_suffix(p["geometry"]))


def _suffix(g: Geometry) -> str:
    """The int8 entry point for geometry g: _pw8 and _pw16 for pointwise layers with at most 8 or 16 input
    channels (their own loops, which other models do not link), else mr_conv2d_s8."""
    if not is_pointwise(g) or g.in_c > 16:
        return ""
    return "_pw8" if g.in_c <= 8 else "_pw16"
