"""Run a runner ELF on QEMU with deterministic time and read what it reports.

`-icount shift=0` makes virtual time advance exactly 1 ns per guest instruction (align=off and sleep=off
keep it independent of the host), so timer readings are instruction counts and repeat run after run.
The runner talks through semihosting: console lines `mr-bench: KEY 0xVALUE`, files in the working folder.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from ..errors import CompileError
from .machines import Machine

QEMU_FLAGS = ("-nographic", "-monitor", "none", "-serial", "none",
              "-semihosting-config", "enable=on,target=native",
              "-icount", "shift=0,align=off,sleep=off")
_LINE = re.compile(r"^mr-bench: ([a-z ]+?) 0x([0-9a-f]+)$")


def run_qemu(qemu: str, machine: Machine, elf: Path, cwd: Path, timeout: float,
             extra: tuple[str, ...] | list[str] = ()) -> list[tuple[str, int]]:
    """(key, value) pairs the runner printed, in order; CompileError when it fails or times out. `extra`: more
    QEMU options (the cycle plugin's)."""
    command = [qemu, "-machine", machine.name, *QEMU_FLAGS, *extra, "-kernel", str(elf)]
    try:
        result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CompileError(f"QEMU {machine.name} did not finish within {timeout:g} s", str(elf)) from None
    # QEMU writes the semihosting console to stderr; accept either stream.
    text = result.stderr + result.stdout
    pairs = [(m.group(1), int(m.group(2), 16)) for m in map(_LINE.match, text.splitlines()) if m]
    if result.returncode != 0 or "mr-bench: done" not in text:
        said = [line for line in text.splitlines() if line.strip()]
        detail = said[-1] if said else f"exit status {result.returncode}"
        raise CompileError(f"runner failed on QEMU {machine.name}: {detail}", str(elf))
    return pairs


def qemu_version(qemu: str) -> str:
    result = subprocess.run([qemu, "--version"], capture_output=True, text=True)
    match = re.search(r"version (\S+)", result.stdout)
    return match.group(1) if match else "unknown"


def cost(machine: Machine, ticks: int, spins: int) -> int:
    """Instructions from the start edge to the end of the call, up to the constant the empty call removes."""
    return ticks * machine.ns_per_tick - 4 * spins


def samples(pairs: list[tuple[str, int]], key: str) -> list[int]:
    """The values printed under `key`, in order."""
    return [value for k, value in pairs if k == key]
