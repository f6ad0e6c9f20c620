"""nn.dense int8 on the Arm DSP kernel (crt/src/mr_dense.c, its MR_DSP_ASM path): blocks of 4 units in
assembly (SMLAD, unrolled twice) where the bias is folded and there are at least 4 units of depth >= 4;
requantized in the assembly (mr_requant_zp, SSAT) for a per-tensor layer with int8's clamp and a depth that is
a multiple of 4, else in C."""

from __future__ import annotations

from dataclasses import dataclass

from ...target.cost_model import dense_estimate
from ..base import KernelPlan
from ..portable.dense import SOURCES, emit_dense
from ..registry import kernel
from ._int8 import Int8DspKernel


def _requant_zp(mult: int, shift: int, zero_point: int) -> list[int] | None:
    """mr_requant_zp_of (crt/include/micro_relay/simd.h): {hi, mult, k} with k = -shift - 1 and hi = 2^(k-1) +
    zero_point * 2^k, which requantize and add the zero point in five instructions, when mult >= 0 and
    k is in [1, 20]; else None. The DSP kernel requantizes with them in its assembly routine, which runs blocks
    of 4 units, for a per-tensor int8 layer whose bias is folded, whose clamp is int8's (SSAT) and whose depth is
    a nonzero multiple of 4 (no tail)."""
    k = -int(shift) - 1
    if mult < 0 or not 1 <= k <= 20:
        return None
    return [(1 << (k - 1)) + int(zero_point) * (1 << k), int(mult), k]


def requant_words(p: dict) -> list[int] | None:
    """The requantization words of the assembly routine for this layer, or None where C requantizes (as for
    every node that rounds once)."""
    if (not p.get("single") and "folded_bias" in p and len(p["mult"]) == 1 and (p["act_min"], p["act_max"]) == (-128, 127)
            and p["depth"] % 4 == 0 and p["depth"] >= 4 and p["units"] >= 4):
        return _requant_zp(p["mult"][0], p["shift"][0], p["out_zp"])
    return None


@dataclass(frozen=True)
class DenseDspPlan(KernelPlan):
    requant: tuple[int, ...] | None = None  # mr_requant_zp words (requant_words), None: requantized in C


@kernel
class DspDense(Int8DspKernel):
    op = "nn.dense"
    sources = SOURCES

    def plan(self, target, graph, node, p, options):
        words = requant_words(p)
        return DenseDspPlan(sources=SOURCES, requant=None if words is None else tuple(words))

    def cost_shape(self, p, plan):
        """What the cost model prices: the op's constants with the requantization words, if the assembly has them."""
        return p if plan.requant is None else dict(p, requant=list(plan.requant))

    def estimate(self, target, graph, node, p, plan):
        return dense_estimate(self.cost_shape(p, plan))

    def report(self, graph, node, p, plan):
        if "folded_bias" not in p:
            return "one unit at a time, zero points subtracted"
        if p["units"] < 4 or p["depth"] < 4:
            return "one unit at a time (C)"
        path = "blocks of 4 units in assembly (SMLAD, unrolled twice), "
        if plan.requant is not None:
            path += "requantized there (mr_requant_zp, SSAT)"
        else:
            tail = p["depth"] % 4
            path += "requantized in C" + (f" after the last {tail} value(s)" if tail else "")
        if p["units"] % 4:
            path += f"; the last block repeats {4 - p['units'] % 4} unit(s)"
        return path

    def emit(self, ctx, node, p, plan):
        return emit_dense(ctx, node, p, "mr_dense_s8", requant=plan.requant)
