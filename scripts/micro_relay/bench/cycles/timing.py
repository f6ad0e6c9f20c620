"""Cycles from instruction classes: a cost per class for each core the bench can estimate.

Cortex-M4 follows the processor instruction timings of its Technical Reference Manual (zero wait states):
data processing, multiplies and MACs (32- and 64-bit, DSP) 1 cycle; a single load 2, or 1 when it follows a
single load or store (the two pipeline their address and data phases); a single store 1 (its data phase
overlaps the next instruction); LDRD/STRD 1+2; LDM/STM/PUSH/POP 1+N; a branch 1, plus a pipeline refill P
when taken or when the PC is written; FPU add/multiply/convert/move 1, multiply-accumulate 3, divide and
square root 14, VLDR/VSTR 2, VLDM/VSTM/VPUSH/VPOP 1+N. Two figures the manual gives as ranges are fixed here:
P = 2 (1 to 3 by alignment and speculation) and SDIV/UDIV = 7 (2 to 12 by early termination). What the model
leaves out: flash wait states and prefetch (on real parts at high clocks), a load that waits for the register
a preceding instruction writes, bus contention, interrupts. So it is a zero-wait-state figure, as the
manual's table is.

Cortex-M7 gets a labelled approximation, not the manual: every pair of instructions issues together, no
stalls, branches predicted; a lower bound more than an estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

REFILL = 2  # P, the pipeline refill of a taken branch
DIVIDE = 7  # SDIV/UDIV, the middle of 2..12


@dataclass(frozen=True)
class CycleModel:
    core: str
    method: str
    costs: dict[str, float]

    def cycles(self, counts: dict[str, int]) -> int:
        unknown = set(counts) - set(self.costs)
        if unknown:
            raise ValueError(f"no cost for instruction classes {sorted(unknown)}")
        return round(sum(self.costs[name] * n for name, n in counts.items()))


COUNTED_APART = ("branch_taken", "registers")  # not instructions: a refill, the registers of LDM and friends


def instructions(counts: dict[str, int]) -> int:
    return sum(n for name, n in counts.items() if name not in COUNTED_APART)


CORTEX_M4 = CycleModel("Cortex-M4F", "Cortex-M4 TRM instruction timings, zero wait states, P=2, divide 7", {
    "alu": 1, "mul": 1, "div": DIVIDE, "load": 2, "load_pipelined": 1, "store": 1, "load_store_double": 3,
    "multiple": 1, "registers": 1, "branch": 1, "branch_taken": REFILL, "fp": 1, "fp_mac": 3, "fp_div": 14,
    "fp_load_store": 2, "fp_multiple": 1, "barrier": 1,
})

CORTEX_M7 = CycleModel("Cortex-M7", "approximation: dual issue of every pair, no stalls, branches predicted", {
    "alu": 0.5, "mul": 1, "div": DIVIDE, "load": 1, "load_pipelined": 1, "store": 1, "load_store_double": 1,
    "multiple": 1, "registers": 0.5, "branch": 0.5, "branch_taken": 0, "fp": 0.5, "fp_mac": 1, "fp_div": 14,
    "fp_load_store": 1, "fp_multiple": 1, "barrier": 1,
})

MODELS = {m.core: m for m in (CORTEX_M4, CORTEX_M7)}


def model_for(core: str) -> CycleModel | None:
    """The cycle model of a bench machine's core (machines.py names), or None where there is none."""
    return MODELS.get(core)
