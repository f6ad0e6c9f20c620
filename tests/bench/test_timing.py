"""The timing method on loops of known instruction count: the stated error of `micro-relay bench`.

Spin loops of N iterations x 4 instructions, timed with the runner's own mrb_measure() against the
1-iteration loop, must come out at 4 (N - 1) instructions within a fixed bound, on every board and from
8 to 40,000,000 instructions: the bound does not grow with length, so the relative error vanishes.
"""

from __future__ import annotations

import pytest

from micro_relay.bench import MACHINES, calibrate

# Quantization of the start edge (3-instruction wait loop) and of the end spins (4 instructions),
# as seen by QEMU's timer reads; measured worst case 12.
ERROR_BOUND = 16


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_known_loops(arm_tools, machine):
    rows = calibrate(machine)
    assert [r["iterations"] for r in rows][-1] == 10_000_000
    worst = max(abs(r["error"]) for r in rows)
    assert worst <= ERROR_BOUND, rows
    longest = rows[-1]
    assert abs(longest["error"]) / longest["expected"] < 1e-6


def test_wraps_are_counted_once(arm_tools):
    """SysTick reloading every 4096 ticks: a lost or doubled wrap would cost 4096 ticks, an off-by-one
    tick at a wrap 40 instructions; each wrap may only add its handler's few instructions."""
    machine = MACHINES["mps2-an386"]
    rows = calibrate(machine.name, reload=0xFFF)
    for row in rows:
        wraps = row["expected"] // (4096 * machine.ns_per_tick)
        assert -ERROR_BOUND <= row["error"] <= ERROR_BOUND + 8 * (wraps + 1), row
