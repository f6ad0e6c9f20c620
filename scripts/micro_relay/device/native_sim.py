"""The model server as a Zephyr native_sim program (samples/model_server built for native_sim): started here,
reached through the pseudo-terminal its UART is connected to.

native_sim's UART driver (native PTY UART) opens a pseudo-terminal and prints its name on the program's standard
output (`uart connected to pseudotty: /dev/pts/N`); the host opens that like a serial port. The program runs
until the host is done with it, then is stopped.
"""

from __future__ import annotations

import contextlib
import re
import select
import subprocess
import time
from pathlib import Path

from ..errors import CompileError
from .transport import TtyTransport, stop_program

PTY_LINE = re.compile(rb"connected to pseudotty: (\S+)")


def native_sim_program(path: str) -> Path:
    """The zephyr.exe `path` names: the program, or a Zephyr build folder holding zephyr/zephyr.exe."""
    program = Path(path)
    if program.is_dir():
        program = program / "zephyr" / "zephyr.exe"
    if not program.is_file():
        raise CompileError("no native_sim program here (a zephyr.exe, or a build folder holding zephyr/zephyr.exe)",
                           path)
    return program


@contextlib.contextmanager
def native_sim_server(path: str, timeout: float):
    """A transport to the model server running as a native_sim program; the program is stopped after."""
    program = native_sim_program(path)
    try:
        process = subprocess.Popen([str(program)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
    except OSError as exc:
        raise CompileError(f"cannot start the native_sim program: {exc.strerror or exc}", str(program)) from None
    transport = None
    try:
        transport = TtyTransport(_pty_of(process, timeout, program), timeout)
        yield transport
    finally:
        if transport is not None:
            transport.close()
        stop_program(process)
        process.stdout.close()


def _pty_of(process: subprocess.Popen, timeout: float, program: Path) -> str:
    """The pseudo-terminal the program says its UART is on, read from its output within `timeout` s."""
    said = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not select.select([process.stdout], [], [], 0.1)[0]:
            continue
        chunk = process.stdout.read1(4096)
        if not chunk:
            break  # the program ended
        said += chunk
        found = PTY_LINE.search(said)
        if found:
            return found.group(1).decode()
    last = [line for line in said.decode(errors="replace").splitlines() if line.strip()]
    raise CompileError("the native_sim program named no UART pseudo-terminal"
                       + (f" (it said: {last[-1]})" if last else " within the time-out"), str(program))
