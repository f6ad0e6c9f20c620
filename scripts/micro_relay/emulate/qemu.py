"""Run a Zephyr build's zephyr.elf in qemu-system-arm: `west micro-relay qemu [-d BUILD_DIR]`.

Zephyr 4.1's board files for the MPS2 boards (mps2/an385, mps2/an386, mps2/an500, mps2/an521) name Arm's FVP
as their emulator, so `west build -t run` stops with `ARMFVP-NOTFOUND` where no FVP is installed. QEMU emulates
the same boards; this runs the build's image there, with the console on the terminal (Ctrl-A X quits):

    qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -vga none -net none -serial mon:stdio
                    -kernel build/zephyr/zephyr.elf

The board comes from the build's CONFIG_BOARD_TARGET (zephyr/.config). --dry-run prints the command instead;
other arguments (after `--`, or any this command does not know) go to QEMU (for example `-- -icount shift=0`
for repeatable cycle counts). Bad input (no build folder, a board QEMU does not emulate, no qemu-system-arm)
is one line `error: <what> (<where>)`, exit 2.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from pathlib import Path

from ..errors import CompileError

# Zephyr board (or board target) -> (QEMU machine, CPU): the MPS2 FPGA images QEMU emulates, and the board
# Zephyr itself runs in QEMU (qemu_cortex_m3, a TI LM3S6965 evaluation board).
MACHINES = {
    "mps2/an385": ("mps2-an385", "cortex-m3"),
    "mps2/an386": ("mps2-an386", "cortex-m4"),
    "mps2/an500": ("mps2-an500", "cortex-m7"),
    "mps2/an521": ("mps2-an521", "cortex-m33"),
    "qemu_cortex_m3": ("lm3s6965evb", "cortex-m3"),
}
QEMU = "qemu-system-arm"


def machine_of(board: str, where: str) -> tuple[str, str]:
    """The QEMU machine and CPU of a board target: itself, then without its last qualifiers."""
    parts = board.split("/")
    for length in range(len(parts), 0, -1):
        found = MACHINES.get("/".join(parts[:length]))
        if found:
            return found
    known = ", ".join(sorted(MACHINES))
    raise CompileError(f"QEMU does not emulate board {board} here (known: {known})", where)


def board_of(build_dir: Path) -> str:
    from ..budget.config import read_kconfig

    config = build_dir / "zephyr" / ".config"
    if not build_dir.is_dir():
        raise CompileError("build folder not found", str(build_dir))
    if not config.is_file():
        raise CompileError("not a Zephyr build folder (no zephyr/.config)", str(build_dir))
    board = read_kconfig(config).get("CONFIG_BOARD_TARGET") or read_kconfig(config).get("CONFIG_BOARD")
    if not isinstance(board, str) or not board:
        raise CompileError("the build's .config names no board (CONFIG_BOARD_TARGET)", str(config))
    return board


def qemu_command(build_dir: Path, extra: list[str] = (), serial: tuple[str, ...] = ("-serial", "mon:stdio")
                 ) -> list[str]:
    """The qemu-system-arm command line that runs the build's zephyr.elf, its UART on `serial` (the terminal,
    with QEMU's monitor; none: the caller adds its own)."""
    board = board_of(build_dir)
    machine, cpu = machine_of(board, str(build_dir / "zephyr" / ".config"))
    elf = build_dir / "zephyr" / "zephyr.elf"
    if not elf.is_file():
        over = elf.with_name("zephyr.elf.over-budget")
        why = "the image failed its budget" if over.is_file() else "build it first"
        raise CompileError(f"no zephyr.elf to run ({why})", str(elf.parent))
    return [QEMU, "-machine", machine, "-cpu", cpu, "-nographic", "-vga", "none", "-net", "none",
            *serial, "-kernel", str(elf), *extra]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="west micro-relay qemu", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-d", "--build-dir", default="build", help="the Zephyr build folder (default: build)")
    parser.add_argument("--dry-run", action="store_true", help="print the QEMU command, do not run it")
    argv = list(sys.argv[1:] if argv is None else argv)
    split = argv.index("--") if "--" in argv else len(argv)
    args, more = parser.parse_known_args(argv[:split])  # QEMU's own options (-icount ...) pass through, in order
    try:
        command = qemu_command(Path(args.build_dir), [*more, *argv[split + 1:]])
        if args.dry_run:
            print(shlex.join(command))
            return 0
        if shutil.which(QEMU) is None:
            raise CompileError(f"{QEMU} is not installed (Debian: apt-get install qemu-system-arm)", "PATH")
    except CompileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    os.execvp(command[0], command)  # QEMU owns the terminal from here; its exit status is the command's
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
