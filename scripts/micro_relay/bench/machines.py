"""The QEMU boards the bench runs on: core, compiler flags, processor clock and linker script.

The clock is what turns SysTick ticks into instructions under `-icount shift=0` (1 ns of virtual time per
instruction): QEMU's MPS2 boards run their cores at 25 MHz (hw/arm/mps2.c), the AN505's IoTKit at 20 MHz
(hw/arm/mps2-tz.c). The calibration loop in tests/bench checks both figures.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import CompileError


@dataclass(frozen=True)
class Machine:
    name: str  # QEMU -machine value, also the linker script's stem (runner/ld/NAME.ld)
    core: str
    cflags: tuple[str, ...]
    clock_hz: int

    @property
    def ns_per_tick(self) -> int:
        """Instructions per SysTick tick under -icount shift=0."""
        return 1_000_000_000 // self.clock_hz


MACHINES: dict[str, Machine] = {m.name: m for m in (
    Machine("mps2-an385", "Cortex-M3", ("-mcpu=cortex-m3", "-mfloat-abi=soft"), 25_000_000),
    Machine("mps2-an386", "Cortex-M4F", ("-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"), 25_000_000),
    Machine("mps2-an500", "Cortex-M7", ("-mcpu=cortex-m7", "-mfpu=fpv5-d16", "-mfloat-abi=hard"), 25_000_000),
    Machine("mps2-an505", "Cortex-M33", ("-mcpu=cortex-m33", "-mfpu=fpv5-sp-d16", "-mfloat-abi=hard"), 20_000_000),
)}


def get_machine(name: str) -> Machine:
    try:
        return MACHINES[name]
    except KeyError:
        raise CompileError(f"unknown machine '{name}'; known: {', '.join(MACHINES)}", "--machine") from None
