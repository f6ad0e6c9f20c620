"""squared_difference on the portable kernel (crt/src/mr_squared_difference.c): int8 takes ADD's parameter
struct (mr_addsub_q_params), float32 mr_binary_params."""

from __future__ import annotations

from ..registry import kernel
from ._binary import ADDSUB_FIELDS, BroadcastKernel


@kernel
class PortableSquaredDifference(BroadcastKernel):
    op = "squared_difference"
    sources = ("squared_difference",)
    structs = {"s8": ("mr_addsub_q_params", (*ADDSUB_FIELDS, "act_min", "act_max"), ())}
