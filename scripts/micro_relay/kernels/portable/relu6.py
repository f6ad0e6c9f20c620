"""nn.relu6 on the portable kernel (crt/src/mr_relu6.c)."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import UnaryKernel


@kernel
class PortableRelu6(UnaryKernel):
    op = "nn.relu6"
    sources = ("relu6",)
    q_fields = ("size", "lower", "upper")
