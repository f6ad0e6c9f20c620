"""nn.avg_pool2d on the portable kernel (crt/src/mr_avg_pool2d.c): every dtype, no scratch, output rows in
order."""

from __future__ import annotations

from ..registry import kernel
from ._pooling import PoolKernel


@kernel
class PortableAvgPool2d(PoolKernel):
    op = "nn.avg_pool2d"
    sources = ("avg_pool2d",)
