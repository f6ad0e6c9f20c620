"""tanh on the portable kernel (crt/src/mr_tanh.c): int8 (gemmlowp fixed point) and float32."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import LogisticKernel


@kernel
class PortableTanh(LogisticKernel):
    op = "tanh"
    sources = ("tanh",)
