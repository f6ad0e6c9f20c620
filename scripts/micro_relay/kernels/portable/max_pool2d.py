"""nn.max_pool2d on the portable kernel (crt/src/mr_max_pool2d.c): every dtype, no scratch, output rows in
order."""

from __future__ import annotations

from ..registry import kernel
from ._pooling import PoolKernel


@kernel
class PortableMaxPool2d(PoolKernel):
    op = "nn.max_pool2d"
    sources = ("max_pool2d",)
