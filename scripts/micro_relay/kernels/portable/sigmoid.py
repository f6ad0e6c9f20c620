"""sigmoid on the portable kernel (crt/src/mr_sigmoid.c): int8 (gemmlowp fixed point) and float32."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import LogisticKernel


@kernel
class PortableSigmoid(LogisticKernel):
    op = "sigmoid"
    sources = ("sigmoid",)
