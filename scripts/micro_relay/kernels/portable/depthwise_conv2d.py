"""nn.depthwise_conv2d on the portable kernels (crt/src/mr_depthwise_conv2d.c): every dtype, every target, no
scratch. int8 walks the window in blocks of four output channels (depth multiplier 1 or a multiple of 4; one
channel at a time otherwise), windows inside the image from the folded bias."""

from __future__ import annotations

from ...ops._conv_common import Geometry
from ..base import Kernel, KernelPlan
from ..overlap import window_overlap_delta
from ..registry import kernel
from ._conv_call import emit_call, function_name

SOURCES = ("depthwise_conv2d",)


def walk_path(g: Geometry) -> str:
    """The window walk's loops (the plan report)."""
    return ("window walk, 4 outputs of one input channel a pass" if g.filter_c % 4 == 0
            else "window walk, one channel at a time")


@kernel
class PortableDepthwiseConv2D(Kernel):
    op = "nn.depthwise_conv2d"
    backend = "portable"
    sources = SOURCES

    def plan(self, target, graph, node, p, options):
        """Every path walks output rows in order (kernels/overlap.py)."""
        itemsize = graph.type_of(node.inputs[0]).dtype.itemsize
        return KernelPlan(overlap_delta=window_overlap_delta(p["geometry"], itemsize), sources=SOURCES)

    def report(self, graph, node, p, plan):
        return walk_path(p["geometry"]) if p["kind"] == "s8" else ""

    def emit(self, ctx, node, p, plan):
        return emit_call(ctx, node, p, function_name("mr_depthwise_conv2d", p))
