"""nn.depthwise_conv2d int8 on CMSIS-NN (arm_depthwise_conv_wrapper_s8 through
crt/cmsis_nn/mr_cmsis_depthwise_conv2d.c)."""

from __future__ import annotations

from ..portable.depthwise_conv2d import SOURCES
from ..registry import kernel
from ._adapters import CmsisNnKernel


@kernel
class CmsisNnDepthwiseConv2D(CmsisNnKernel):
    op = "nn.depthwise_conv2d"
    sources = SOURCES
