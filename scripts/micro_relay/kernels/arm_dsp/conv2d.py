"""nn.conv2d int8 on the Arm DSP kernel (crt/src/mr_conv2d_dsp.c): every int8 convolution is a matrix product
over windows gathered, extended to int16, into arena scratch, two pixels by two channels a block (SMLAD).

The scratch it is planned with sets how many pixels a tile holds; each tile pays a setup per output-channel
pair, so larger tiles are faster and the room search (plan/room.py) offers them as the `tile_pixels` option
where the arena has the bytes anyway. Builds that cannot give the assembly its registers (MR_DSP_ASM 0:
clang, a kept frame pointer) run the portable loops from the same entry points, so the overlap this kernel
declares holds for both (the larger of the two paths' tiles).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import CompileError
from ...ir.registry import op_where
from ...ops._conv_common import Geometry, is_pointwise
from ...target.cost_model import conv2d_estimate, conv_tiles
from ..base import KernelPlan
from ..overlap import POINTWISE_TILE
from ..portable.conv2d import SOURCES, conv_overlap_delta
from ..portable._conv_call import emit_call
from ..registry import kernel
from ._int8 import Int8DspKernel

# The arena scratch of the int8 kernel's DSP path (crt/src/mr_conv2d_dsp.c, whose mr_conv2d_s8_scratch_bytes is the
# same arithmetic: tests/kernels/test_layouts.py), planned on DSP targets only: slots of 4 bytes per window value
# (the window padded with zeros to a multiple of 4 values; a 3x3x64 window: 2,304 B), one for a channel pair's filters
# extended to int16 (none for _pw8, one per channel pair up to 64 channels for _pw16), the others each a pair of
# gathered windows, plus an int8 staging copy of one window when filter_c is not a multiple of 4. The kernel
# takes as many pixels a tile as the pairs hold. By default: pointwise layers at most MR_POINTWISE_TILE pixels
# within DSP_TILE_BYTES; other layers at most 7 pairs (ResNet-8's 3x3x16 layers set its arena), at least 1, and
# no more than a band's pixels (a band: as many whole output rows as the pairs hold when there is one group,
# else one row). Each tile pays a setup per output-channel pair, the filters' extension included, so larger
# tiles are faster (ResNet-8's 3x3x16 windows: 2 pixels a tile at 1,024 B, 16 at 8,192 B); the scratch lives
# only during the layer but can set the arena. So the default is small, and the kernel's tile_pixels option
# asks for more: the compiler sets it (variants, plan/room.py) where the arena has the room anyway.
DSP_TILE_BYTES = 8192


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
    """Pixels a tile without the tile_pixels option (an even count: the kernel fills pixel pairs)."""
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
    """The tile the kernel takes for a tile_pixels option (0: the default), rounded up to pixel pairs."""
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
        if tile > default and conv_tiles(g, tile) < conv_tiles(g, default):
            tiles.add(tile)
    return tuple(sorted(tiles, reverse=True))


@dataclass(frozen=True)
class ConvDspPlan(KernelPlan):
    tile_pixels: int = 0  # pixels a tile (even), from the tile_pixels option or default_tile


@kernel
class DspConv2D(Int8DspKernel):
    op = "nn.conv2d"
    sources = SOURCES
    options = {"tile_pixels": 0}  # 0: default_tile

    def plan(self, target, graph, node, p, options):
        g: Geometry = p["geometry"]
        tile = options["tile_pixels"]
        if tile < 0:
            raise CompileError(f"tile_pixels must be 0 (the default) or a pixel count, got {tile}",
                               op_where(graph, node))
        tile = tile_of(g, tile)
        return ConvDspPlan(scratch_bytes=dsp_scratch_bytes(g, tile),
                           overlap_delta=conv_overlap_delta(graph, node, p, max(POINTWISE_TILE, tile)),
                           entry="mr_conv2d_s8" + _suffix(g), sources=SOURCES, tile_pixels=tile)

    def variants(self, target, graph, node, p, plan):
        """Tiles larger than the default (each filter extended fewer times), largest first."""
        if plan.tile_pixels != tile_of(p["geometry"]):
            return ()
        return tuple({"tile_pixels": tile} for tile in larger_tiles(p["geometry"]))

    def cost_shape(self, p, plan):
        """What the cost model prices: the op's constants with the tile this plan takes."""
        return dict(p, tile_pixels=plan.tile_pixels)

    def estimate(self, target, graph, node, p, plan):
        return conv2d_estimate(self.cost_shape(p, plan))

    def report(self, graph, node, p, plan):
        return dsp_path(p["geometry"], plan.tile_pixels)

    def emit(self, ctx, node, p, plan):
        weights = None
        if plan.entry.endswith("_pw8_padded"):  # 8 weights a channel, zeros past in_c
            w = np.asarray(ctx.graph.tensors[node.inputs[1]].data).reshape(p["geometry"].out_c, -1)
            weights = ctx.const_array(np.pad(w, ((0, 0), (0, 8 - w.shape[1]))), "int8_t", "weights")
        return emit_call(ctx, node, p, plan.entry, scratch_bytes=plan.scratch_bytes, scratch_arg="planned",
                         weights_expr=weights)


def dsp_path(g: Geometry, tile: int) -> str:
    """The loops the DSP kernel takes for geometry g and a tile of `tile` pixels (the plan report)."""
    n = g.k_h * g.k_w * g.filter_c
    if is_pointwise(g) and g.in_c < 8:
        return (f"matrix product: {g.in_c}-value pixel rows read as 8 values (the weights padded to 8 with zeros in "
                f"flash) and extended to int16 in scratch, {tile} pixels a tile, 1 channel's weights in registers a "
                f"pass (SMLAD)")
    if is_pointwise(g) and g.in_c == 8:
        return (f"matrix product: 8-value pixel rows extended to int16 in scratch, {tile} pixels a tile, 1 channel's "
                f"weights in registers a pass (SMLAD)")
    if is_pointwise(g) and g.in_c <= 16:
        once = g.out_c <= 64  # every channel pair's weights extended once (mr_conv2d_s8_pw16)
        weights = "all channels' weights extended to int16 in scratch once" if once else \
            "2 channels' weights extended to int16 in scratch a tile"
        return (f"matrix product: {g.in_c}-value pixel rows padded to 16 and extended to int16 in scratch, "
                f"{tile} pixels a tile, {weights}, 2 pixels x 2 channels a block, 4 blocks of 4 values straight "
                f"(SMLAD)")
    if is_pointwise(g):
        return (f"matrix product: {g.in_c}-value pixel rows extended to int16 in scratch, {tile} pixels a tile, "
                f"2 channels' weights extended to int16 in scratch a tile, 2 pixels x 2 channels a block (SMLAD)")
    staged = "" if g.filter_c % 4 == 0 else ", staged as int8 first"
    return (f"im2col: {n}-value windows extended to int16 in scratch{staged}, {tile} pixels a tile, 2 channels' "
            f"weights extended to int16 in scratch a tile, 2 pixels x 2 channels a block (SMLAD)")


def _suffix(g: Geometry) -> str:
    """The int8 entry point for geometry g: _pw8 and _pw16 for pointwise layers with at most 8 or 16 input
    channels (their own loops, which other models do not link), _pw8_padded below 8 (the weights padded to 8 a
    channel in flash, so that one assembly pass takes every channel of a tile), else mr_conv2d_s8."""
    if not is_pointwise(g) or g.in_c > 16:
        return ""
    return "_pw8_padded" if g.in_c < 8 else "_pw8" if g.in_c == 8 else "_pw16"
