"""What every Arm DSP kernel shares: they run int8 layers only; int16 and float nodes fall through to the
portable kernels. Their assembly requantizes as TFLite Micro does; a node that rounds once (ONNX QDQ,
ops/_common.py ROUNDING) keeps the SIMD multiply-accumulate loops and has every channel requantized in C
(the kernels' long way, crt simd.h mr_requant_node)."""

from __future__ import annotations

from ..base import Kernel


class Int8DspKernel(Kernel):
    backend = "arm_dsp"

    def refusal(self, target, graph, node, p):
        return None if p["kind"] == "s8" else f"the DSP kernel is int8 only, not {p['kind']}"
