"""Link, and when a memory region overflows, measure the image anyway and report its budget breakdown.

A firmware that does not fit its board fails at the link (`region 'FLASH' overflowed by 6506 bytes`), before
the post-link check could say what takes the room. The Zephyr module runs every link of zephyr.elf through
this wrapper (CMake's C_LINKER_LAUNCHER):

    python3 -m micro_relay.budget.link [budget options] -- <the link command>

1. Run the link command as it is, its output passed through; its exit status is this one's.
2. Only when it failed on a region overflow (ld's `region 'R' overflowed by N bytes` or `section ... will not
   fit in region 'R'`): copy the linker script with each overflowed region 16 MiB longer (MEMORY's LENGTH; no
   other region, no address moves), link again into a temporary folder, read that image with the budget check
   (budget/judge.py: the same breakdown, held against the same budget: the board's memory, the Kconfig limits,
   the budget YAML, with the models, arena groups and plans the post-link check is given), print the report, and
   delete the temporary image: it never fits the board, and nothing of it is left to flash.
The linker's own error stays the first thing printed; the report follows it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import CompileError

SPILL = "0x1000000"  # 16 MiB added to each overflowed region, so the image links and can be measured
_OVERFLOW = re.compile(r"region [`'\"]?([A-Za-z0-9_.$-]+?)['`\"]? overflowed by (\d+) bytes")
_WILL_NOT_FIT = re.compile(r"will not fit in region [`'\"]?([A-Za-z0-9_.$-]+?)['`\"]?\s*$", re.MULTILINE)


def overflowed_regions(linker_output: str) -> list[str]:
    names = _OVERFLOW.findall(linker_output)
    found = [name for name, _ in names] + _WILL_NOT_FIT.findall(linker_output)
    return sorted(set(found))


def widen_regions(script: str, regions: list[str]) -> str:
    """The linker script with the LENGTH of each named MEMORY region increased by SPILL."""
    memory = re.search(r"\bMEMORY\s*\{", script)
    if memory is None:
        return script
    end = script.index("}", memory.end())
    body = script[memory.end():end]
    for region in regions:
        body = re.sub(rf"(^|\n)(\s*{re.escape(region)}\s*(\([^)]*\))?\s*:[^\n]*?LENGTH\s*=\s*)([^,\n]+)",
                      lambda m: f"{m.group(1)}{m.group(2)}({m.group(4).strip()}) + {SPILL}", body)
    return script[:memory.end()] + body + script[end:]


def _linker_script_argument(command: list[str]) -> tuple[int, str] | None:
    """(index of the argument, the script's path) of the link command's linker script."""
    for index, arg in enumerate(command):
        for prefix in ("-Wl,-T,", "-Wl,-T", "-T"):
            if arg.startswith(prefix) and len(arg) > len(prefix) and Path(arg[len(prefix):]).is_file():
                return index, arg[len(prefix):]
        if arg in ("-T", "-Wl,-T") and index + 1 < len(command) and Path(command[index + 1]).is_file():
            return index + 1, command[index + 1]
    return None


def _output_argument(command: list[str]) -> int | None:
    for index, arg in enumerate(command[:-1]):
        if arg == "-o":
            return index + 1
    return None


def measure_overflowed(command: list[str], regions: list[str], args) -> list[str]:
    """The budget report of the image linked with the overflowed regions widened, or [] when it cannot be made."""
    from .cli import judge_for
    from .config import read_kconfig, resolve_budget
    from .elf import ElfImage

    script_at, output_at = _linker_script_argument(command), _output_argument(command)
    if script_at is None or output_at is None:
        return []
    index, script_path = script_at
    with tempfile.TemporaryDirectory(prefix="micro-relay-spill-") as folder:
        widened = Path(folder) / Path(script_path).name
        widened.write_text(widen_regions(Path(script_path).read_text(errors="replace"), regions))
        spill = Path(folder) / Path(command[output_at]).name
        relink = list(command)
        relink[index] = command[index].replace(script_path, str(widened))
        relink[output_at] = str(spill)
        relink = [arg for arg in relink if not arg.startswith("-Wl,-Map")]  # keep the failed link's map
        done = subprocess.run(relink, capture_output=True, text=True)
        if done.returncode != 0 or not spill.is_file():
            return []
        kconfig = read_kconfig(args.config) if args.config else {}
        budget = resolve_budget(args.board, kconfig, args.budget_yaml)
        verdict = judge_for(ElfImage(spill), budget, args).verdict()
        lines = [line.replace(str(spill), f"{command[output_at]}, linked with more {'/'.join(regions)} to be "
                                          "measured, deleted") for line in verdict.lines]
    if verdict.ok:  # over a region the budget does not count (a CCM, a DTCM): the linker's message says it
        return []
    return lines


def main(argv: list[str] | None = None) -> int:
    import argparse

    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        print("error: no link command: python3 -m micro_relay.budget.link [options] -- <command>", file=sys.stderr)
        return 2
    split = argv.index("--")
    from .cli import add_model_arguments

    parser = argparse.ArgumentParser(prog="python3 -m micro_relay.budget.link", description=__doc__,
                                     fromfile_prefix_chars="@", formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", help="the build's .config (board memory, CONFIG_MICRO_RELAY_* limits)")
    parser.add_argument("--board", help="board target of the budget YAML entry (default: from --config)")
    parser.add_argument("--budget-yaml", help="per-board budget file")
    add_model_arguments(parser)
    args = parser.parse_args(argv[:split])
    command = argv[split + 1:]
    if not command:
        print("error: the link command is empty (python3 -m micro_relay.budget.link)", file=sys.stderr)
        return 2
    done = subprocess.run(command, capture_output=True, text=True)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    if done.returncode == 0:
        return 0
    regions = overflowed_regions(done.stdout + done.stderr)
    if regions:
        try:
            lines = measure_overflowed(command, regions, args)
        except (CompileError, OSError, ValueError) as exc:  # the measurement is extra: never hide the link's error
            lines = [f"micro-relay budget: could not measure the image that overflowed: {exc}"]
        if lines:
            sys.stderr.write("\n".join(lines) + "\n")
    sys.stderr.flush()
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
