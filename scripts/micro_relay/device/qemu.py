"""The model server on an emulated board: built into the bare-metal bench runner, run by QEMU with its UART0 on
a Unix socket.

The firmware is the runner's startup and SysTick timer (bench/runner), the MPS2 port (server/port_mps2.c: the
CMSDK UART, instruction counts) and the server's sources for the model (firmware.py: the model's C as the
compiler wrote it, its invoke marking each layer, and the server). QEMU runs with `-icount shift=0`, so the
counts are exact instruction counts and repeat from run to run. The socket is served with wait=on: the guest
starts only once the host is connected, so no byte is lost, and the host ends the QEMU process it started
when it is done.

A Zephyr build of samples/model_server for a board QEMU emulates runs the same way (zephyr_qemu_server): the
build's own zephyr.elf, its console UART on the socket, under -icount so its timer counts repeat.
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
from pathlib import Path

from ..bench.build import build_runner, find_tool
from ..bench.machines import get_machine
from ..errors import CompileError
from .firmware import SERVER_DIR, write_server
from .transport import SocketTransport, stop_program

# boards whose UART0 is the CMSDK APB UART at 0x40004000 (QEMU hw/arm/mps2.c)
QEMU_BOARDS = ("mps2-an385", "mps2-an386", "mps2-an500")
QEMU_FLAGS = ("-nographic", "-monitor", "none", "-semihosting-config", "enable=on,target=native",
              "-icount", "shift=0,align=off,sleep=off")


def build_server(model, machine_name: str, work: Path, model_defines: tuple[str, ...] = (),
                 extra_sources: tuple[Path, ...] = ()) -> Path:
    """The server firmware for a CompiledModel, its sources written under work/model (firmware.write_server;
    model_defines and extra_sources: tests only, to swap a kernel for a broken one)."""
    if machine_name not in QEMU_BOARDS:
        raise CompileError(f"no model server for QEMU board '{machine_name}'; known: {', '.join(QEMU_BOARDS)}",
                           "--qemu")
    machine = get_machine(machine_name)
    gcc = find_tool("arm-none-eabi-gcc", "gcc-arm-none-eabi")
    model_dir = work / "model"
    sources = [*write_server(model, model_dir, model_defines), *extra_sources]
    defines = (f"-I{model_dir}", f"-DMRS_NS_PER_TICK={machine.ns_per_tick}u", "-DMRS_COUNT_UNIT=0")
    flags = ("-DMRS_COUNT_UNIT=0",)
    return build_runner(gcc, machine, model_dir, work, str(SERVER_DIR / "port_mps2.c"), sources, defines,
                        model_flags=flags)


@contextlib.contextmanager
def qemu_server(elf: Path, machine_name: str, timeout: float):
    """A transport to the server running on QEMU; QEMU is stopped when the block ends."""
    qemu = find_tool("qemu-system-arm", "qemu-system-arm")
    with _uart_on_socket([qemu, "-machine", machine_name, *QEMU_FLAGS, "-kernel", str(elf)], timeout) as transport:
        yield transport


@contextlib.contextmanager
def zephyr_qemu_server(build_dir: str, timeout: float):
    """A transport to a Zephyr build's model server running in QEMU (the command `west micro-relay qemu` runs,
    its UART on the socket instead of the terminal)."""
    from ..emulate.qemu import qemu_command

    find_tool("qemu-system-arm", "qemu-system-arm")
    command = qemu_command(Path(build_dir), ["-icount", "shift=6,align=off,sleep=off"], serial=())
    with _uart_on_socket([*command, "-monitor", "none"], timeout) as transport:
        yield transport


@contextlib.contextmanager
def _uart_on_socket(command: list[str], timeout: float):
    """Run a QEMU command with its first UART served on a Unix socket; QEMU is stopped when the block ends."""
    with tempfile.TemporaryDirectory(prefix="mr-device-") as tmp:
        sock = Path(tmp) / "uart"
        command = [*command, "-chardev", f"socket,id=uart,path={sock},server=on,wait=on", "-serial", "chardev:uart"]
        log = open(Path(tmp) / "qemu.log", "w+b")
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        transport = None
        try:
            transport = _connect(sock, timeout, process, log)
            yield transport
        finally:
            if transport is not None:
                transport.close()
            stop_program(process)
            log.close()


def _connect(sock: Path, timeout: float, process: subprocess.Popen, log) -> SocketTransport:
    try:
        return SocketTransport(str(sock), timeout)
    except CompileError:
        process.poll()
        log.seek(0)
        said = [line for line in log.read().decode(errors="replace").splitlines() if line.strip()]
        raise CompileError(f"QEMU did not start: {said[-1] if said else 'no output'}", str(sock)) from None
