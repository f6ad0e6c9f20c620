"""nn.conv2d int8 on CMSIS-NN (arm_convolve_wrapper_s8 through crt/cmsis_nn/mr_cmsis_conv2d.c)."""

from __future__ import annotations

from ..portable.conv2d import SOURCES
from ..registry import kernel
from ._adapters import CmsisNnKernel


@kernel
class CmsisNnConv2D(CmsisNnKernel):
    op = "nn.conv2d"
    sources = SOURCES
