"""nn.relu on the portable kernel (crt/src/mr_relu.c)."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import UnaryKernel


@kernel
class PortableRelu(UnaryKernel):
    op = "nn.relu"
    sources = ("relu",)
    q_fields = ("size", "in_zp", "out_zp", "mult", "shift", "act_min", "act_max")
