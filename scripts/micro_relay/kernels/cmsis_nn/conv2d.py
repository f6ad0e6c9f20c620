"""nn.conv2d int8 on CMSIS-NN (arm_convolve_wrapper_s8 through crt/cmsis_nn/mr_cmsis_conv2d.c)."""

from __future__ import annotations

from ..portable._conv_call import emit_call
from ..portable.conv2d import SOURCES
from ..registry import kernel
from ._adapters import CmsisNnKernel


def emit_convolution(ctx, node, p: dict, plan) -> str:
    """conv2d / depthwise_conv2d on CMSIS-NN: our mr_conv2d_q_params (scratch_bytes = the planned CMSIS-NN
    buffer, no folded bias: CMSIS-NN adds the input offset itself), the tensors, and the scratch or NULL. The
    adapter returns MR_ERR_CMSIS_NN when CMSIS-NN refuses its arguments (which the refusals should make
    impossible), and the invoke stops there like for any kernel's status."""
    return emit_call(ctx, node, p, plan.entry, scratch_bytes=plan.scratch_bytes,
                     scratch_arg="planned" if plan.scratch_bytes else "NULL", folded_bias=False)


@kernel
class CmsisNnConv2D(CmsisNnKernel):
    op = "nn.conv2d"
    sources = SOURCES

    def emit(self, ctx, node, p, plan):
        return emit_convolution(ctx, node, p, plan)
