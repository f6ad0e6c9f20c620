"""What the CMSIS-NN kernels share: which nodes CMSIS-NN computes bit-exactly, its buffers, its functions.

`compile_graph(..., kernels="cmsis-nn")` (`micro-relay compile --kernels cmsis-nn`) puts the CMSIS-NN kernels
first for the compile (lower/); the graph, the passes and the reference interpreter do not change. A node runs
on CMSIS-NN when its constants are something CMSIS-NN computes bit-exactly (cmsis_nn_refusal, each kernel's
`refusal`); its call names an adapter from crt/cmsis_nn/ (mr_cmsis_<op>_s8) that takes the very parameter
struct our kernel takes and builds CMSIS-NN's structs from it at run time. Every other node keeps our kernel.

What falls back to our kernels, decided here at compile time (the plan report's kernel field says so):
- anything but int8 activations (int16, float);
- a convolution or depthwise convolution without a bias (CMSIS-NN's 1x1, 1xN and 3x3 paths read it
  unconditionally), a grouped convolution (arm_convolve_wrapper_s8_get_buffer_size sizes a grouped 1x1
  layer for the 1x1 path that the wrapper then does not take), a 1x1 layer whose windows reach past the
  bottom or right edge (CMSIS-NN's 1x1 paths take no padding, and bottom/right padding is implicit);
- a dense layer with a nonzero weight zero point (TFLite Micro's int8 FULLY_CONNECTED has one, CMSIS-NN's
  DSP path adds it in 16 bits: not proven here, so not used);
- any dimension past 65535 (CMSIS-NN keeps some in uint16_t).
Quantization needs no conversion: our (mult, shift) are TFLite's QuantizeMultiplier pairs (positive shift =
left), which is CMSIS-NN's convention, and with CMSIS_NN_USE_SINGLE_ROUNDING undefined (the default; the
adapters refuse to build otherwise) arm_nn_requantize is TFLite Micro's double rounding. Per-tensor weight
scales are already per-channel arrays (ops/_conv_common.py quant_params broadcasts them).

Scratch: exactly what CMSIS-NN's *_get_buffer_size returns, for the larger of the portable C and the DSP
(ARM_MATH_DSP, Cortex-M4/M7/M33) variants as GCC builds them; tests/cmsis_nn/test_buffer_sizes.py compiles the
library's own functions on the host and compares. MVE (Cortex-M55/M85) and Arm Compiler 6 builds size some
buffers differently: the adapters stop such a build with #error rather than overrun the planned scratch.

Memory: CMSIS-NN's kernels do not promise our kernels' access order (kernels/overlap.py; its grouped and
1xN paths do not even walk output rows in order), so a node on CMSIS-NN declares no lagged overlap.
"""

from __future__ import annotations

from ..base import Kernel, KernelPlan
from ..portable._conv_call import emit_call

# The ops that have an adapter: op name -> adapter source stem (crt/cmsis_nn/mr_cmsis_<stem>.c).
ADAPTERS = {"nn.conv2d": "conv2d", "nn.depthwise_conv2d": "depthwise_conv2d", "nn.dense": "dense"}
HEADER = "micro_relay_cmsis_nn.h"
_UINT16_MAX = 65535


def _has_bias(node) -> bool:
    return len(node.inputs) > 2 and bool(node.inputs[2])


def _too_large(*dims: int) -> bool:
    return any(d > _UINT16_MAX for d in dims)


def cmsis_nn_refusal(graph, node, p: dict) -> str | None:
    """Why CMSIS-NN cannot run this node bit-exactly (None: it can)."""
    if node.op not in ADAPTERS:
        return "no CMSIS-NN adapter for this op"
    if p.get("kind") != "s8":
        return f"CMSIS-NN adapters cover int8 only, not {p.get('kind')}"
    if p.get("single"):
        return "CMSIS-NN requantizes as TFLite Micro does, not with one rounding"
    if node.op == "nn.dense":
        if p["w_zp"] != 0:
            return "weight zero point is not 0"
        if _too_large(p["rows"], p["depth"], p["units"]):
            return "a dimension exceeds 65535"
        return None
    g = p["geometry"]
    if not _has_bias(node):
        return "no bias (CMSIS-NN's fast paths read it unconditionally)"
    if _too_large(g.batches, g.in_h, g.in_w, g.in_c, g.out_h, g.out_w, g.out_c, g.k_h, g.k_w):
        return "a dimension exceeds 65535"
    if node.op == "nn.conv2d":
        if g.filter_c != g.in_c:
            return "grouped convolution"
        if _conv_path(g) in ("1x1", "1x1_fast") and (
                (g.out_h - 1) * g.stride_h + 1 > g.in_h or (g.out_w - 1) * g.stride_w + 1 > g.in_w):
            return "1x1 window past the bottom/right edge (CMSIS-NN's 1x1 paths take no padding)"
    return None


# ---- arm_*_get_buffer_size, for max(portable C, DSP) as GCC builds them ----

def _conv_path(g) -> str:
    """Which function arm_convolve_wrapper_s8 calls (for one group: input channels == filter channels)."""
    if g.pad_top == 0 and g.pad_left == 0 and g.k_h == 1 and g.k_w == 1 and g.dil_h == 1 and g.dil_w == 1:
        return "1x1_fast" if g.stride_h == 1 and g.stride_w == 1 else "1x1"
    if g.in_h == 1 and g.dil_w == 1 and g.k_h == 1 and (g.stride_w * g.in_c) % 4 == 0:
        return "1xn"
    return "im2col"


def conv2d_buffer_bytes(g) -> int:
    """arm_convolve_wrapper_s8_get_buffer_size: the 1x1 paths need none with GCC (the DSP 1x1 fast path's
    buffer exists only for Arm Compiler 6), the 1xN and im2col paths two int16 columns of the window padded
    to a multiple of 4 values."""
    if _conv_path(g) in ("1x1", "1x1_fast"):
        return 0
    aligned_cols = (g.k_h * g.k_w * g.in_c + 3) // 4 * 4
    return 2 * aligned_cols * 2


def depthwise_conv2d_buffer_bytes(g) -> int:
    """arm_depthwise_conv_wrapper_s8_get_buffer_size: the DSP optimized path (depth multiplier 1, one batch,
    no dilation, not the 3x3 path) keeps the window of every channel as int16; the rest need none."""
    if g.filter_c != 1 or g.batches != 1 or g.dil_h != 1 or g.dil_w != 1:
        return 0
    if g.k_h == 3 and g.k_w == 3 and g.pad_top <= 1 and g.pad_left <= 1:
        return 0
    return g.in_c * g.k_h * g.k_w * 2


def dense_buffer_bytes() -> int:
    """arm_fully_connected_s8_get_buffer_size: 0 outside MVE (its kernel sums are an MVE buffer)."""
    return 0


def buffer_bytes(node, p: dict) -> int:
    if node.op == "nn.conv2d":
        return conv2d_buffer_bytes(p["geometry"])
    if node.op == "nn.depthwise_conv2d":
        return depthwise_conv2d_buffer_bytes(p["geometry"])
    return dense_buffer_bytes()


def function_of(node, p: dict) -> str:
    """The CMSIS-NN function the adapter calls for this node (the plan report)."""
    if node.op == "nn.conv2d":
        return {"1x1_fast": "arm_convolve_1x1_s8_fast", "1x1": "arm_convolve_1x1_s8",
                "1xn": "arm_convolve_1_x_n_s8", "im2col": "arm_convolve_s8"}[_conv_path(p["geometry"])]
    if node.op == "nn.depthwise_conv2d":
        g = p["geometry"]
        if g.filter_c == 1 and g.batches == 1 and g.dil_h == 1 and g.dil_w == 1:
            return ("arm_depthwise_conv_3x3_s8" if g.k_h == 3 and g.k_w == 3 and g.pad_top <= 1
                    and g.pad_left <= 1 else "arm_depthwise_conv_s8_opt")
        return "arm_depthwise_conv_s8"
    return "arm_fully_connected_per_channel_s8" if len(p["mult"]) > 1 else "arm_fully_connected_s8"


class CmsisNnKernel(Kernel):
    """A node on CMSIS-NN: the adapter's buffer as scratch, no lagged overlap (CMSIS-NN's kernels do not promise
    our access order), the adapter source with the model."""

    backend = "cmsis_nn"

    def refusal(self, target, graph, node, p):
        return cmsis_nn_refusal(graph, node, p)

    def plan(self, target, graph, node, p, options):
        stem = ADAPTERS[node.op]
        return KernelPlan(scratch_bytes=buffer_bytes(node, p), sources=self.sources, adapters=(stem,),
                          entry=f"mr_cmsis_{stem}_s8")

    def report(self, graph, node, p, plan):
        scratch = f", {plan.scratch_bytes} B scratch" if plan.scratch_bytes else ""
        return f"CMSIS-NN {function_of(node, p)} through {plan.entry}{scratch}"

    def emit(self, ctx, node, p, plan):
        """conv2d / depthwise_conv2d (dense overrides it): our mr_conv2d_q_params (scratch_bytes = the planned
        CMSIS-NN buffer, no folded bias: CMSIS-NN adds the input offset itself), the tensors, and the scratch or
        NULL. The adapter returns MR_ERR_CMSIS_NN when CMSIS-NN refuses its arguments (which the refusals should
        make impossible), and the invoke stops there like for any kernel's status."""
        return emit_call(ctx, node, p, plan.entry, scratch_bytes=plan.scratch_bytes,
                         scratch_arg="planned" if plan.scratch_bytes else "NULL", folded_bias=False)
