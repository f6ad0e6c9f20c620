"""nn.conv2d on the portable kernels (crt/src/mr_conv2d.c): every dtype, every target.

int8 takes mr_conv2d_s8_portable, which needs no scratch: a tiled matrix product (tiles of POINTWISE_TILE
pixels, 4 channels a pass) for pointwise layers, a clipped window walk (4 channels a pass) otherwise. int16
and float walk the window.
"""

from __future__ import annotations

from ...ops._conv_common import Geometry, is_pointwise
from ..base import Kernel, KernelPlan
from ..overlap import POINTWISE_TILE, pointwise_delta, window_overlap_delta
from ..registry import kernel
from ._conv_call import emit_call, function_name

SOURCES = ("conv2d", "conv2d_dsp")  # mr_conv2d.c; mr_conv2d_dsp.c holds the DSP overrides of the same names
PORTABLE_S8 = "mr_conv2d_s8_portable"  # the int8 entry that every build keeps portable (a DSP build too)


def conv_overlap_delta(graph, node, p: dict, tile: int) -> int:
    """The int8 pointwise product works in tiles of at most `tile` pixels, every other path in output rows. The
    int16 and float kernels have no tiled path today; for a pointwise geometry they also get the tile bound, so
    that giving them one later keeps the declared overlap safe."""
    g: Geometry = p["geometry"]
    itemsize = graph.type_of(node.inputs[0]).dtype.itemsize
    if not is_pointwise(g):
        return window_overlap_delta(g, itemsize)
    tiles = pointwise_delta(g.batches * g.in_h * g.in_w, g.in_c, g.out_c, itemsize, tile)
    return tiles if p["kind"] == "s8" else min(tiles, window_overlap_delta(g, itemsize))


@kernel
class PortableConv2D(Kernel):
    op = "nn.conv2d"
    backend = "portable"
    sources = SOURCES

    def plan(self, target, graph, node, p, options):
        return KernelPlan(overlap_delta=conv_overlap_delta(graph, node, p, POINTWISE_TILE), sources=SOURCES)

    def report(self, graph, node, p, plan):
        if p["kind"] != "s8":
            return ""
        if is_pointwise(p["geometry"]):
            return "matrix product: tiles of 16 pixels, 4 channels a pass"
        return "window walk, 4 channels a pass, window clipped to the image once"

    def emit(self, ctx, node, p, plan):
        if p["kind"] != "s8":
            return emit_call(ctx, node, p, function_name("mr_conv2d", p))
        return emit_call(ctx, node, p, PORTABLE_S8, scratch_arg="NULL")
