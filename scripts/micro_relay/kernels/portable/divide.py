"""divide on the portable kernel (crt/src/mr_divide.c): float32, int32 and int8, numpy broadcasting."""

from __future__ import annotations

from ..registry import kernel
from ._binary import BroadcastKernel


@kernel
class PortableDivide(BroadcastKernel):
    op = "divide"
    sources = ("divide",)
    structs = {"f32": ("mr_addsub_f32_params", (), ("act_min", "act_max")),
               "s32": ("mr_divide_s32_params", ("act_min", "act_max"), ()),
               "s8": ("mr_divide_s8_params", ("a_offset", "b_offset", "out_offset", "mult", "shift", "act_min",
                                              "act_max"), ())}
