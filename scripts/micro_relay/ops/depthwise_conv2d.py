"""nn.depthwise_conv2d: TFLite DEPTHWISE_CONV_2D on NHWC data with weights [1, KH, KW, C*m].

out[b, oy, ox, ic*m + j] = act(sum over in-image taps (fy, fx) of w[0, fy, fx, ic*m + j] * x[b, iy, ix, ic] + bias)
with iy = oy*stride_h - pad_top + fy*dilation_h (likewise x) and m the depth multiplier (an attribute, as in
TFLite Micro, which does not infer it).

Integer semantics (TFLM_ARITHMETIC.md section 2): as conv2d, per output channel on weight axis 3. int8 sums
f * (q - in_zp) in int32 over in-image taps; int16x8 uses no zero points and always accumulates in int64
(TFLite Micro reads the bias as int64) with MBQM64. Float sums fy, fx from 0.f, adds bias (0.f when absent).

The int8 kernel (crt/src/mr_depthwise_conv2d.c) works in blocks of four output channels, picked from the
depth multiplier in the parameter struct (1, or a multiple of 4); prepare folds bias - in_zp * sum(w) per
channel when the weights are constant and refuses what the kernel's exactness relies on. On DSP cores depth
multiplier 1 or a multiple of 4 reads a zero-padded, sign-extended strip of the input from arena scratch
(dsp_scratch_bytes). With the rolling_strips attribute, which the compiler sets where the arena has room for it
(scratch_variants, plan/room.py), the layer gets the larger scratch of rolling strips, and the kernel, whichever
entry point, rolls whenever its scratch holds them: every chunk and strip fill keeps its strip across output rows,
and a later row moves the k_h - stride_h rows it shares with the row above and extends only stride_h new ones
(rolling_refusal says where that applies). So each layer rolls or not on its own, with no code linked for it.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import ACTIVATION, fail, out_type
from ._conv_common import (NO_PADDING, PAIR_OF_ONES, check_bias_headroom, check_int8_kernel_limits,
                           check_wide_shifts, emit_call,
                           float_finish, folded_bias, Geometry, inputs3, inside_image, prepare_convolution,
                           requantize, window_attrs, window_overlap_delta, windowed_size, windows)
from . import _cmsis_nn, _cost


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
    """Whether the DSP path reads a strip (depth multiplier 1 or a multiple of 4): always for a 3x3 undilated
    window (the assembly pixel loop), otherwise when the cost model (ops/_cost.py) estimates the strip's C tap
    loop faster than the window walk. The choice weighs instructions only; the strip's scratch
    (dsp_scratch_bytes) is planned like a tensor and shows in the plan report. The walk still wins for shared
    input channels in large windows (micro_speech's 10x8, whose strip would double its arena). Never for windows
    over 255 rows: the kernel counts a strip's rows in bytes (dw_roll)."""
    if (g.filter_c != 1 and g.filter_c % 4) or g.k_h > 255:
        return False
    return _is_3x3(g) or _cost.cheapest(g, _cost.depthwise_candidates(g)) == "depthwise_strip"


def _asm_requantizes(p: dict) -> list[bool]:
    """Per output channel, whether the 3x3 assembly requantizes it itself: mr_requant_zp_of's condition
    (crt/include/micro_relay/simd.h), mult >= 0 and shift in [-21, -2] (tests/ops/test_depthwise_entry.py ties
    the two); the other channels' blocks leave raw sums to C."""
    return [m >= 0 and -21 <= s <= -2 for m, s in zip(p["mult"], p["shift"])]


def _strip_entry(p: dict) -> str:
    """The suffix of the strip kernel's entry point for a layer's constants: each links only the code it needs."""
    g: Geometry = p["geometry"]
    if not _is_3x3(g):
        return "_strip"
    if g.out_c % 4:
        return "_strip3x3"
    if all(_asm_requantizes(p)):
        return "_strip3x3_fast"
    if all(m >= 0 and -21 <= s <= -1 for m, s in zip(p["mult"], p["shift"])):
        return "_strip3x3_shift1"  # the assembly's longer requantization also holds shift -1
    return "_strip3x3_x4"


def _spans(g: Geometry) -> list[int]:
    """Input columns (pixels) each chunk of an output row reads."""
    counts = [min(DSP_CHUNK, g.out_w - start) for start in range(0, g.out_w, DSP_CHUNK)]
    return [(count - 1) * g.stride_w + (g.k_w - 1) * g.dil_w + 1 for count in counts]


def dsp_scratch_bytes(g: Geometry, rolling: bool = False) -> int:
    """Arena scratch of mr_depthwise_conv2d_s8_strip's DSP path (depth multiplier 1 or a multiple of 4; the
    other multipliers take the window walk, without scratch): one header per block of 4
    channels (DSP_HEADER bytes, then the k_h * k_w taps of extended weights, two words each), the chunks of an
    output row (DSP_CHUNK_BYTES each, an even count), for the 3x3 assembly a chunk's raw sums (16 bytes a pixel)
    for blocks whose requantization it cannot do, then k_h filter rows of the widest chunk's input columns, two
    words (four int16 channels) a pixel. Rolling strips keep one strip per chunk and strip fill instead, each k_h
    rows of its chunk's own span. The kernel computes this size with rolling from the geometry and rolls when its
    scratch (the parameter struct's scratch_bytes) holds it: keep the two in step."""
    if not uses_strip(g):
        return 0
    spans = _spans(g)
    chunks = len(spans)
    strips = 8 * g.k_h * (_cost.strip_fills(g) * sum(spans) if rolling else spans[0])
    sums = 16 * min(g.out_w, DSP_CHUNK) if _is_3x3(g) else 0
    return (g.out_c // 4 * (DSP_HEADER + 8 * g.k_h * g.k_w) + DSP_CHUNK_BYTES * (chunks + chunks % 2)
            + strips + sums)


def rolling_refusal(g: Geometry) -> str | None:
    """Why an int8 layer on our kernels cannot take rolling strips (None: it can): they need the strip path, a
    block of 4 channels, and rows the next output row reads again (no row dilation, stride_h < k_h, two output
    rows or more). Windows over 255 rows take no strip at all (uses_strip)."""
    if not uses_strip(g):
        return "the layer takes the window walk, not a strip"
    if _cost.strip_fills(g) == 0:
        return "no block of 4 channels"
    if g.dil_h != 1:
        return "row dilation"
    if g.stride_h >= g.k_h:
        return "no input row shared by consecutive output rows (stride_h >= k_h)"
    if g.out_h < 2:
        return "a single output row"
    return None


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
    attrs = {"strides": PAIR_OF_ONES, "dilation": PAIR_OF_ONES, "padding": NO_PADDING,
             "depth_multiplier": Attr(int, 1), "activation": ACTIVATION,
             # int8 strip path: keep a strip per chunk and strip fill across output rows (more scratch); set by
             # the compiler (scratch_variants, plan/room.py)
             "rolling_strips": Attr(int, 0, (0, 1))}
    num_inputs = (2, 3)
    kernels = ("depthwise_conv2d",)

    def infer(self, graph, node):
        g = _geometry(graph, node)
        data = graph.type_of(node.inputs[0])
        return [TensorType((g.batches, g.out_h, g.out_w, g.out_c), data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        g = _geometry(graph, node)
        params, bias_dtype = prepare_convolution(graph, node, g, 3)
        rolling = bool(node.attrs.get("rolling_strips", 0))
        if rolling and params["kind"] != "s8":
            fail(graph, node, f"rolling_strips needs int8, got {params['kind']}")
        if rolling and rolling_refusal(g):
            fail(graph, node, f"rolling_strips does not apply: {rolling_refusal(g)}")
        if params["kind"] == "f32":
            return params
        if params["kind"] == "s8":
            params["rolling"] = rolling
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

    def overlap_delta(self, graph, node, p):
        """Every path walks output rows in order (ops/_overlap.py; rolling strips read each input row no later
        than the plain strip does); None on CMSIS-NN (ops/_cmsis_nn.py)."""
        if _cmsis_nn.uses_cmsis_nn(graph, node, p):
            return None
        return window_overlap_delta(p["geometry"], graph.type_of(node.inputs[0]).dtype.itemsize)

    def macs(self, graph, node):
        g = _geometry(graph, node)
        return g.batches * g.out_h * g.out_w * g.out_c * g.k_h * g.k_w

    def kernel_path(self, graph, node, p):
        if _cmsis_nn.uses_cmsis_nn(graph, node, p):
            return _cmsis_nn.kernel_path(node, p)
        g: Geometry = p["geometry"]
        if p["kind"] != "s8":
            return {}
        if not uses_strip(g):
            walk = ("window walk, 4 outputs of one input channel a pass" if g.filter_c % 4 == 0
                    else "window walk, one channel at a time")
            return {"dsp": walk, "portable": walk}
        unrolled = g.k_h == 3 and g.k_w == 3 and g.dil_h == 1 and g.dil_w == 1
        tail = f", {g.out_c % 4} channel(s) by the window walk" if g.out_c % 4 else ""
        # mr_requant_zp_of: the assembly's five-instruction requantization needs mult >= 0, shift in [-21, -2]
        fits = _asm_requantizes(p)
        slow = sum(not all(fits[i:i + 4]) for i in range(0, g.out_c - g.out_c % 4, 4))
        compute = "3x3 in assembly" if unrolled else "C tap loop"
        if unrolled and slow and _strip_entry(p) == "_strip3x3_shift1":
            compute += f" (the longer requantization that holds shift -1: {slow} block(s) need it)"
        elif unrolled and slow:
            compute += f" ({slow} block(s) requantized in C: a shift outside [-21, -2])"
        strip = "zero-padded int16 strip in scratch"
        if p.get("rolling"):
            strip = (f"zero-padded int16 strips in scratch, one per chunk and strip fill kept across output rows "
                     f"(rolling strips: {g.k_h - g.stride_h} of {g.k_h} rows moved up, {g.stride_h} extended a row)")
        if g.filter_c != 1:
            return {"dsp": f"{strip}, one input channel in all 4 lanes of a block of 4 "
                           f"outputs (shared by the blocks of that channel), {compute}",
                    "portable": "window walk, 4 outputs of one input channel a pass"}
        return {"dsp": f"{strip}, blocks of 4 channels, {compute}{tail}",
                "portable": "window walk, blocks of 4 channels (windows inside the image from the folded bias)"}

    def estimate(self, graph, node, p):
        """int8 on our kernel only (ops/_cost.py), with the walk's estimate where uses_strip chose."""
        if p["kind"] != "s8" or _cmsis_nn.uses_cmsis_nn(graph, node, p):
            return None
        return _cost.depthwise_estimate(p, uses_strip(p["geometry"]))

    def scratch_bytes(self, graph, node, params):
        """int8: the DSP path's strip (dsp_scratch_bytes), or CMSIS-NN's buffer on that backend; the other
        kernels need none."""
        if _cmsis_nn.uses_cmsis_nn(graph, node, params):
            return _cmsis_nn.buffer_bytes(node, params)
        return dsp_scratch_bytes(params["geometry"], params.get("rolling", False)) if params["kind"] == "s8" else 0

    def scratch_variants(self, graph, node, params):
        """int8 on our strip kernel: rolling strips (each input row extended once per chunk and strip fill
        rather than once per output row that reads it), where rolling_refusal finds nothing against them."""
        if (params["kind"] != "s8" or _cmsis_nn.uses_cmsis_nn(graph, node, params)
                or node.attrs.get("rolling_strips", 0) or rolling_refusal(params["geometry"])):
            return ()
        return ({"rolling_strips": 1},)

    def entry_point(self, graph, node, params):
        """The int8 strip path's entry, the same with rolling strips (the kernel rolls when its scratch holds
        them); "" for the other paths."""
        if params["kind"] != "s8" or _cmsis_nn.uses_cmsis_nn(graph, node, params) or not uses_strip(params["geometry"]):
            return ""
        return "mr_depthwise_conv2d_s8" + _strip_entry(params)

    def emit(self, ctx, node, p):
        if _cmsis_nn.uses_cmsis_nn(ctx.graph, node, p):
            return _cmsis_nn.emit_convolution(ctx, node, p)
        nbytes = dsp_scratch_bytes(p["geometry"], p.get("rolling", False)) if p["kind"] == "s8" else 0
        if not nbytes:
            return emit_call(ctx, node, p, "mr_depthwise_conv2d")
        return emit_call(ctx, node, dict(p, scratch_bytes=nbytes), "mr_depthwise_conv2d", scratch=True,
                         suffix=_strip_entry(p))
