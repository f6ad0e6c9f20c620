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
from ._conv_common import (NO_PADDING, PAIR_OF_ONES, check_bias_headroom, check_int8_kernel_limits,
                           check_wide_shifts, emit_call,
                           exact_matmul, float_finish, folded_bias, Geometry, inputs3, inside_image, is_pointwise,
                           prepare_convolution, requantize, window_attrs, window_overlap_delta, windowed_size,
                           windows)
from ._overlap import pointwise_delta
from . import _cmsis_nn, _cost

# The arena scratch of the int8 kernel's DSP path (crt/src/mr_conv2d_dsp.c), reserved on every target because the
# compiler does not know whether the core has the DSP extension: slots of 4 bytes per window value (the window
# padded with zeros to a multiple of 4 values; a 3x3x64 window: 2,304 B), one for a channel pair's filters
# extended to int16 (none for _pw8, one per channel pair up to 64 channels for _pw16), the others each a pair of
# gathered windows, plus an int8 staging copy of one window when filter_c is not a multiple of 4. The kernel
# takes as many pixels a tile as the pairs hold. By default: pointwise layers at most MR_POINTWISE_TILE pixels
# within DSP_TILE_BYTES; other layers at most 7 pairs (ResNet-8's 3x3x16 layers set its arena), at least 1, and
# no more than a band's pixels (a band: as many whole output rows as the pairs hold when there is one group,
# else one row). Each tile pays a setup per output-channel pair, the filters' extension included, so larger
# tiles are faster (ResNet-8's 3x3x16 windows: 2 pixels a tile at 1,024 B, 16 at 8,192 B); the scratch lives
# only during the layer but can set the arena. So the default is small, and the node's tile_pixels attribute
# asks for more: the compiler sets it (scratch_variants, plan/room.py) where the arena has the room anyway.
DSP_TILE_BYTES = 8192
POINTWISE_TILE = 16


def _window_values(g: Geometry) -> int:
    """Values per gathered window (mr_conv2d_s8_pw8 pads to 8, mr_conv2d_s8_pw16 to 16)."""
    if is_pointwise(g):
        return 8 if g.in_c <= 8 else 16 if g.in_c <= 16 else g.in_c
    return g.k_h * g.k_w * g.filter_c


def _weight_slots(g: Geometry) -> int:
    if is_pointwise(g) and g.in_c <= 8:  # mr_conv2d_s8_pw8: weights in registers
        return 0
    if is_pointwise(g) and g.in_c <= 16:  # mr_conv2d_s8_pw16: every channel pair's, up to 64 channels
        return (g.out_c + 1) // 2 if g.out_c <= 64 else 1
    return 1


def _band_pixels(g: Geometry) -> int:
    """Pixels the kernel's tiles may span: the whole layer (pointwise), every output row (one group: a band of
    whole rows), or one output row."""
    if is_pointwise(g) or g.in_c == g.filter_c:
        return g.batches * g.out_h * g.out_w
    return g.out_w


def default_tile(g: Geometry) -> int:
    """Pixels a tile without the tile_pixels attribute (an even count: the kernel fills pixel pairs)."""
    pair = 16 * ((_window_values(g) + 3) // 4)
    if is_pointwise(g):
        row_pixels = g.batches * g.out_h * g.out_w
        return 2 * min(max(1, DSP_TILE_BYTES // pair), POINTWISE_TILE // 2, (row_pixels + 1) // 2)
    pairs = min(max(2, DSP_TILE_BYTES // pair), POINTWISE_TILE // 2) - 1
    row_pixels = g.out_w
    if g.in_c == g.filter_c and 2 * pairs >= row_pixels:
        row_pixels *= 2 * pairs // row_pixels
    return 2 * min(pairs, (row_pixels + 1) // 2)


def tile_of(g: Geometry, tile_pixels: int = 0) -> int:
    """The tile the kernel takes for a tile_pixels attribute (0: the default), rounded up to pixel pairs."""
    tile = tile_pixels or default_tile(g)
    return tile + tile % 2


def dsp_scratch_bytes(g: Geometry, tile_pixels: int = 0) -> int:
    """Bytes of arena scratch mr_conv2d_s8 gets for geometry g and a tile of tile_pixels (0: the default)."""
    n = _window_values(g)
    pair = 16 * ((n + 3) // 4)  # two pixels' windows
    stage = 0 if is_pointwise(g) or g.filter_c % 4 == 0 else 4 * ((n + 3) // 4)
    return (tile_of(g, tile_pixels) // 2 + _weight_slots(g)) * pair + stage


def larger_tiles(g: Geometry) -> tuple[int, ...]:
    """Tiles larger than the default that save filter extensions, largest first: the whole band, then 8, 4 and
    2 times the default; with bands of whole rows, whole rows."""
    default, most = default_tile(g), _band_pixels(g)
    rows = not is_pointwise(g) and g.in_c == g.filter_c
    tiles = set()
    for tile in [most] + [default * f for f in (8, 4, 2)]:
        tile = min(tile, most)
        if rows and tile >= g.out_w:
            tile = tile // g.out_w * g.out_w
        tile += tile % 2
        if tile > default and _cost.conv_tiles(g, tile) < _cost.conv_tiles(g, default):
            tiles.add(tile)
    return tuple(sorted(tiles, reverse=True))


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
             "quantized_bias_type": Attr(str, "default", ("default", "int32", "int64")),
             # int8 on the DSP path: pixels a tile (0: default_tile); set by the compiler (plan/room.py)
             "tile_pixels": Attr(int, 0)}
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
            tile = node.attrs.get("tile_pixels", 0)
            if tile < 0:
                fail(graph, node, f"tile_pixels must be 0 (the default) or a pixel count, got {tile}")
            params["tile_pixels"] = tile_of(g, tile)
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
        tile = max(POINTWISE_TILE, p.get("tile_pixels", 0))  # the portable path's tiles, the DSP path's
        tiles = pointwise_delta(g.batches * g.in_h * g.in_w, g.in_c, g.out_c, itemsize, tile)
        return tiles if p["kind"] == "s8" else min(tiles, window_overlap_delta(g, itemsize))

    def macs(self, graph, node):
        g = _geometry(graph, node)
        return g.batches * g.out_h * g.out_w * g.out_c * g.k_h * g.k_w * g.filter_c

    def scratch_bytes(self, graph, node, params):
        """int8: the windows the DSP path gathers (dsp_scratch_bytes), or CMSIS-NN's buffer on that backend; the
        other kernels need none."""
        if _cmsis_nn.uses_cmsis_nn(graph, node, params):
            return _cmsis_nn.buffer_bytes(node, params)
        return dsp_scratch_bytes(params["geometry"], params["tile_pixels"]) if params["kind"] == "s8" else 0

    def scratch_variants(self, graph, node, params):
        """int8 on our kernel: tiles larger than the default (each filter extended fewer times), largest first."""
        if params["kind"] != "s8" or _cmsis_nn.uses_cmsis_nn(graph, node, params) or node.attrs.get("tile_pixels"):
            return ()
        return tuple({"tile_pixels": tile} for tile in larger_tiles(params["geometry"]))

    def kernel_path(self, graph, node, p):
        if _cmsis_nn.uses_cmsis_nn(graph, node, p):
            return _cmsis_nn.kernel_path(node, p)
        g: Geometry = p["geometry"]
        if p["kind"] != "s8":
            return {}
        n = g.k_h * g.k_w * g.filter_c
        tile = p["tile_pixels"]
        if is_pointwise(g) and g.in_c <= 8:
            return {"dsp": f"matrix product: {g.in_c}-value pixel rows padded to 8 and extended to int16 in "
                           f"scratch, {tile} pixels a tile, 1 channel's weights in registers a pass (SMLAD)",
                    "portable": "matrix product: tiles of 16 pixels, 4 channels a pass"}
        if is_pointwise(g) and g.in_c <= 16:
            once = g.out_c <= 64  # every channel pair's weights extended once (mr_conv2d_s8_pw16)
            weights = "all channels' weights extended to int16 in scratch once" if once else \
                "2 channels' weights extended to int16 in scratch a tile"
            return {"dsp": f"matrix product: {g.in_c}-value pixel rows padded to 16 and extended to int16 in scratch, "
                           f"{tile} pixels a tile, {weights}, 2 pixels x 2 channels a block, 4 blocks of 4 "
                           f"values straight (SMLAD)",
                    "portable": "matrix product: tiles of 16 pixels, 4 channels a pass"}
        if is_pointwise(g):
            return {"dsp": f"matrix product: {g.in_c}-value pixel rows extended to int16 in scratch, {tile} "
                           f"pixels a tile, 2 channels' weights extended to int16 in scratch a tile, 2 pixels x 2 "
                           f"channels a block (SMLAD)",
                    "portable": "matrix product: tiles of 16 pixels, 4 channels a pass"}
        staged = "" if g.filter_c % 4 == 0 else ", staged as int8 first"
        return {"dsp": f"im2col: {n}-value windows extended to int16 in scratch{staged}, {tile} pixels a tile, "
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
        return emit_call(ctx, node, dict(p, scratch_bytes=dsp_scratch_bytes(p["geometry"], p["tile_pixels"])),
                         "mr_conv2d", scratch=True, suffix=_suffix(p["geometry"]))


def _suffix(g: Geometry) -> str:
    """The int8 entry point for geometry g: _pw8 and _pw16 for pointwise layers with at most 8 or 16 input
    channels (their own loops, which other models do not link), else mr_conv2d_s8."""
    if not is_pointwise(g) or g.in_c > 16:
        return ""
    return "_pw8" if g.in_c <= 8 else "_pw16"
