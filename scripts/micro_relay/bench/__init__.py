"""micro-relay bench: run a compiled model on an emulated Cortex-M core and measure it.

The runner is the project's own bare-metal program (runner/: startup code, vector table, one linker
script per QEMU board, semihosting I/O, SysTick timing), built with arm-none-eabi-gcc and run under
qemu-system-arm with `-icount shift=0`, so each figure is an exact, repeatable instruction count.
bench_model and calibrate load on first use, so the CLI parser can import this package cheaply.
"""

from .machines import MACHINES, Machine, get_machine

__all__ = ["MACHINES", "Machine", "bench_model", "calibrate", "get_machine"]


def __getattr__(name):
    if name in ("bench_model", "calibrate"):
        from . import measure

        return getattr(measure, name)
    raise AttributeError(name)
