"""nn.depth_to_space on the portable kernel: the transpose kernel walking a strided view of the input."""

from __future__ import annotations

from ..registry import kernel
from ._movement import ViewKernel


@kernel
class PortableDepthToSpace(ViewKernel):
    op = "nn.depth_to_space"
