"""nn.prelu on the portable kernel (crt/src/mr_prelu.c): int8, int16 (int8 alpha) and float32, alpha broadcast against x."""

from __future__ import annotations

from ..registry import kernel
from ._binary import BroadcastKernel


@kernel
class PortablePrelu(BroadcastKernel):
    op = "nn.prelu"
    sources = ("prelu",)
    structs = {kind: ("mr_prelu_q_params", ("in_offset", "alpha_offset", "out_offset", "mult1", "shift1", "mult2",
                                            "shift2"), ()) for kind in ("s8", "s16")}
