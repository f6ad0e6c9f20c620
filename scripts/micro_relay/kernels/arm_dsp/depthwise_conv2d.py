"""nn.depthwise_conv2d int8 on the Arm DSP kernel (crt/src/mr_depthwise_conv2d.c, its __ARM_FEATURE_DSP paths).

Any depth multiplier reads a zero-padded, sign-extended strip of the input from arena scratch (dsp_scratch_bytes)
where uses_strip says so; the other layers take the window walk, without scratch. A strip block is 4 output
channels: 4 adjacent input channels (multiplier 1), one in all 4 lanes (a multiple of 4), or each lane's own
(other multipliers, and a partial last block when out_c is not a multiple of 4). With the `rolling` option,
which the room search (plan/room.py) sets where the arena has room for it, the layer gets the larger scratch of
rolling strips, and the kernel, whichever entry point, rolls whenever its scratch holds them: every chunk and
strip fill keeps its strip across output rows, and a later row moves the k_h - stride_h rows it shares with the
row above and extends only stride_h new ones (rolling_refusal says where that applies). So each layer rolls or
not on its own, with no code linked for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import CompileError
from ...ir.registry import op_where
from ...ops._conv_common import Geometry
from ...target.cost_model import (depthwise_candidates, depthwise_estimate, gathered_fills, instructions,
                                  strip_fills)
from ..base import KernelPlan
from ..overlap import window_overlap_delta
from ..portable._conv_call import emit_call
from ..portable.depthwise_conv2d import SOURCES, walk_path
from ..registry import kernel
from ._int8 import Int8DspKernel


# Output pixels per strip fill of the DSP path (MR_DW_CHUNK in crt/src/mr_depthwise_conv2d.c).
DSP_CHUNK = 16


# Bytes of a block header before its extended weights (dw_header in crt/src/mr_depthwise_conv2d.c).
DSP_HEADER = 88

# Bytes of a chunk's description (dw_chunk in crt/src/mr_depthwise_conv2d.c).
DSP_CHUNK_BYTES = 44


def _is_3x3(g: Geometry) -> bool:
    """The window of the DSP path's assembly pixel loop."""
    return (g.k_h, g.k_w, g.dil_h, g.dil_w) == (3, 3, 1, 1)


def uses_strip(g: Geometry) -> bool:
    """Whether the DSP path reads a strip: always for a 3x3 undilated window (the assembly pixel loop). Otherwise
    the strip costs scratch (planned like a tensor, shown in the plan report) for fewer instructions, and the
    rule is the one row by row takes (schedule/chains.py): the strip when the share of the layer's instructions
    it saves (the cost model's estimates of both paths, target/cost_model.py) is at least the share its scratch
    adds to the bytes the layer holds with the walk (held_bytes). So micro_speech's 10x8 window over
    one input channel keeps the walk: the strip would save 37% of the layer's instructions for 69% more bytes
    (4,584 B of scratch beside 6,668 B), and raise its arena above TFLite Micro's. Never for windows over 255
    rows: the kernel counts a strip's rows in bytes (dw_roll)."""
    if g.k_h > 255:
        return False
    if _is_3x3(g):
        return True
    costs = {path: instructions(path, {"geometry": g}) for path in depthwise_candidates(g)}
    strip = costs.pop("depthwise_strip")
    (walk,) = costs.values()
    if strip is None or walk is None or strip >= walk:
        return False
    return 1 - strip / walk >= strip_scratch_bytes(g) / held_bytes(g)


def held_bytes(g: Geometry) -> int:
    """The bytes a depthwise layer holds with the walk: its output and the input its windows read, padding
    included, so that a PAD folded into the layer (passes/fold_padding.py) does not change its kernel."""
    rows = (g.out_h - 1) * g.stride_h + (g.k_h - 1) * g.dil_h + 1
    cols = (g.out_w - 1) * g.stride_w + (g.k_w - 1) * g.dil_w + 1
    return g.batches * (rows * cols * g.in_c + g.out_h * g.out_w * g.out_c)


def _asm_requantizes(p: dict) -> list[bool]:
    """Per output channel, whether the 3x3 assembly requantizes it itself: mr_requant_zp_of's condition
    (crt/include/micro_relay/simd.h), mult >= 0 and shift in [-21, -2] (tests/kernels/arm_dsp/test_depthwise_entry.py ties
    the two); the other channels' blocks leave raw sums to C, as every block of a node that rounds once does."""
    if p.get("single"):
        return [False] * len(p["mult"])
    return [m >= 0 and -21 <= s <= -2 for m, s in zip(p["mult"], p["shift"])]


def _strip_entry(p: dict) -> str:
    """The suffix of the strip kernel's entry point for a layer's constants: each links only the code it needs."""
    g: Geometry = p["geometry"]
    if not _is_3x3(g):
        return "_strip"
    if gathered_fills(g):  # dw_roll_gather, which only _strip and _strip3x3 link
        return "_strip3x3"
    if all(_asm_requantizes(p)):
        return "_strip3x3_fast"
    if not p.get("single") and all(m >= 0 and -21 <= s <= -1 for m, s in zip(p["mult"], p["shift"])):
        return "_strip3x3_shift1"  # the assembly's longer requantization also holds shift -1
    return "_strip3x3_x4"


def _spans(g: Geometry) -> list[int]:
    """Input columns (pixels) each chunk of an output row reads."""
    counts = [min(DSP_CHUNK, g.out_w - start) for start in range(0, g.out_w, DSP_CHUNK)]
    return [(count - 1) * g.stride_w + (g.k_w - 1) * g.dil_w + 1 for count in counts]


def dsp_scratch_bytes(g: Geometry, rolling: bool = False) -> int:
    """Arena scratch of mr_depthwise_conv2d_s8_strip's DSP path (0 for the window walk): one header per block of 4
    channels, the last one partial when out_c is not a multiple of 4 (DSP_HEADER bytes, then the k_h * k_w taps of
    extended weights, two words each), the chunks of an output row (DSP_CHUNK_BYTES each, an even count), for the
    3x3 assembly a chunk's raw sums (16 bytes a pixel) for blocks whose requantization it cannot do, then k_h filter
    rows of the widest chunk's input columns, two words (four int16 channels) a pixel. Rolling strips keep one strip
    per chunk and strip fill instead, each k_h rows of its chunk's own span. The kernel computes this size with
    rolling from the geometry and rolls when its scratch (the parameter struct's scratch_bytes) holds it: keep the
    two in step."""
    return strip_scratch_bytes(g, rolling) if uses_strip(g) else 0


def strip_scratch_bytes(g: Geometry, rolling: bool = False) -> int:
    """dsp_scratch_bytes of a layer that takes the strip."""
    spans = _spans(g)
    chunks = len(spans)
    strips = 8 * g.k_h * (strip_fills(g) * sum(spans) if rolling else spans[0])
    sums = 16 * min(g.out_w, DSP_CHUNK) if _is_3x3(g) else 0
    return (-(-g.out_c // 4) * (DSP_HEADER + 8 * g.k_h * g.k_w) + DSP_CHUNK_BYTES * (chunks + chunks % 2)
            + strips + sums)


def rolling_refusal(g: Geometry) -> str | None:
    """Why an int8 layer on our kernels cannot take rolling strips (None: it can): they need the strip path and rows
    the next output row reads again (no row dilation, stride_h < k_h, two output rows or more). Windows over 255
    rows take no strip at all (uses_strip)."""
    if not uses_strip(g):
        return "the layer takes the window walk, not a strip"
    if g.dil_h != 1:
        return "row dilation"
    if g.stride_h >= g.k_h:
        return "no input row shared by consecutive output rows (stride_h >= k_h)"
    if g.out_h < 2:
        return "a single output row"
    return None


@dataclass(frozen=True)
class DepthwiseDspPlan(KernelPlan):
    strip: bool = False  # the strip path (else the window walk)
    rolling: bool = False  # rolling strips


@kernel
class DspDepthwiseConv2D(Int8DspKernel):
    op = "nn.depthwise_conv2d"
    sources = SOURCES
    options = {"rolling": False}

    def plan(self, target, graph, node, p, options):
        g: Geometry = p["geometry"]
        rolling = bool(options["rolling"])
        if rolling and rolling_refusal(g):
            raise CompileError(f"rolling strips do not apply: {rolling_refusal(g)}", op_where(graph, node))
        strip = uses_strip(g)
        scratch = dsp_scratch_bytes(g, rolling)
        return DepthwiseDspPlan(
            scratch_bytes=scratch, sources=SOURCES, strip=strip, rolling=rolling,
            overlap_delta=window_overlap_delta(g, graph.type_of(node.inputs[0]).dtype.itemsize),
            entry="mr_depthwise_conv2d_s8" + (_strip_entry(p) if strip else ""))

    def variants(self, target, graph, node, p, plan):
        """Rolling strips (each input row extended once per chunk and strip fill rather than once per output row
        that reads it), where rolling_refusal finds nothing against them."""
        if plan.rolling or rolling_refusal(p["geometry"]):
            return ()
        return ({"rolling": True},)

    def cost_shape(self, p, plan):
        """What the cost model prices: the op's constants."""
        return p

    def estimate(self, target, graph, node, p, plan):
        """The strip's or the walk's, as uses_strip chose."""
        return depthwise_estimate(p, plan.strip)

    def report(self, graph, node, p, plan):
        g: Geometry = p["geometry"]
        if not plan.strip:
            return walk_path(g)
        unrolled = g.k_h == 3 and g.k_w == 3 and g.dil_h == 1 and g.dil_w == 1
        tail = f", a partial last block of {g.out_c % 4} channel(s), its lanes gathered" if g.out_c % 4 else ""
        # mr_requant_zp_of: the assembly's five-instruction requantization needs mult >= 0, shift in [-21, -2]
        fits = _asm_requantizes(p)
        slow = sum(not all(fits[i:i + 4]) for i in range(0, g.out_c - g.out_c % 4, 4))
        compute = "3x3 in assembly" if unrolled else "C tap loop"
        if unrolled and slow and _strip_entry(p) == "_strip3x3_shift1":
            compute += f" (the longer requantization that holds shift -1: {slow} block(s) need it)"
        elif unrolled and slow:
            why = "one rounding" if p.get("single") else "a shift outside [-21, -2]"
            compute += f" ({slow} block(s) requantized in C: {why})"
        strip = "zero-padded int16 strip in scratch"
        if plan.rolling:
            strip = (f"zero-padded int16 strips in scratch, one per chunk and strip fill kept across output rows "
                     f"(rolling strips: {g.k_h - g.stride_h} of {g.k_h} rows moved up, {g.stride_h} extended a row)")
        if g.filter_c % 4 == 0:
            return (f"{strip}, one input channel in all 4 lanes of a block of 4 outputs (shared by the blocks of "
                    f"that channel), {compute}")
        if g.filter_c != 1:
            return (f"{strip}, blocks of 4 outputs, each lane's input channel gathered (depth multiplier "
                    f"{g.filter_c}), {compute}{tail}")
        return f"{strip}, blocks of 4 channels, {compute}{tail}"

    def emit(self, ctx, node, p, plan):
        if not plan.scratch_bytes:
            return emit_call(ctx, node, p, plan.entry)
        return emit_call(ctx, node, p, plan.entry, scratch_bytes=plan.scratch_bytes, scratch_arg="planned")
