"""A stand-in for a native_sim build's zephyr.exe, for host tests without a Zephyr workspace: it runs the model
server firmware of an emulated board in QEMU with its UART on a pty, and names that pty as native_sim's UART
driver does. tests/zephyr/test_zephyr_model_server.py runs the real program."""

from __future__ import annotations

from pathlib import Path

from micro_relay.device.qemu import QEMU_FLAGS

STAND_IN = """#!/bin/sh
{qemu} > "{log}" 2>&1 &
pid=$!
trap 'kill $pid; exit 0' TERM
while ! grep -q /dev/pts/ "{log}"; do sleep 0.1; done
echo "UART_0 connected to pseudotty: $(grep -o '/dev/pts/[0-9]*' "{log}")"
wait $pid
"""


def write_native_sim_stand_in(program: Path, elf: Path, board: str) -> Path:
    """Write the stand-in program at `program` (a build's zephyr/zephyr.exe) serving `elf` on QEMU `board`."""
    program.parent.mkdir(parents=True, exist_ok=True)
    qemu = " ".join(["exec", "qemu-system-arm", "-machine", board, *QEMU_FLAGS, "-serial", "pty", "-kernel", str(elf)])
    program.write_text(STAND_IN.format(qemu=qemu, log=program.with_suffix(".log")))
    program.chmod(0o755)
    return program
