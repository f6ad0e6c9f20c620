"""Check a linked firmware image against RAM and Flash budgets.

Reads the ELF, sorts its sections into RAM and Flash the way Zephyr's footprint tools do (NOBITS: RAM;
writable and allocated: RAM and Flash; other allocated: Flash), and holds the totals against the tightest
of: the board's memory (CONFIG_SRAM_SIZE / CONFIG_FLASH_SIZE from .config), the KiB limits
CONFIG_MICRO_RELAY_RAM_BUDGET_KB / _FLASH_BUDGET_KB, the board's entry in a budget YAML, and --ram/--flash.
Within budget: one summary line. Over budget: the board, the budget, the total, the excess and each
model's share by symbol (arena, weights, code), and exit status 1. Bad input: one line
`error: <what> (<where>)` and exit status 2.

Sizes are bytes, or a number with K/KiB (1024) or M/MiB, e.g. --ram 64K.

With --withdraw-images (the Zephyr module's post-link check passes it), an image over budget leaves nothing
to flash: the images beside the ELF that the build made from it (zephyr.hex, .bin, .uf2, .s19, .exe, signed
ones) are removed, and the ELF itself is renamed NAME.elf.over-budget, for inspection. `west flash`, a run
target or a CI step that collects images then finds none, and the next build links and checks again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import CompileError

EXIT_OVER_BUDGET = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--elf", help="the linked image (zephyr.elf); default: BUILD_DIR/zephyr/zephyr.elf")
    parser.add_argument("--build-dir", help="a Zephyr build folder: gives --elf, --config and the budget YAML "
                                            "named by CONFIG_MICRO_RELAY_BUDGET_YAML")
    parser.add_argument("--config", help="the build's .config (board memory, CONFIG_MICRO_RELAY_* limits)")
    parser.add_argument("--board", help="board (target) name: the budget YAML entry to use; "
                                        "default: CONFIG_BOARD_TARGET from --config")
    parser.add_argument("--budget-yaml", help="per-board budget file (see micro_relay/budget/config.py)")
    parser.add_argument("--ram", help="RAM limit, e.g. 64K")
    parser.add_argument("--flash", help="Flash limit, e.g. 256K")
    add_model_arguments(parser)
    parser.add_argument("--output", help="also write the report to this file")
    parser.add_argument("--withdraw-images", action="store_true",
                        help="over budget: remove the images made from the ELF (.hex, .bin, .uf2, .s19, .exe) and "
                             "rename the ELF NAME.elf.over-budget")
    parser.add_argument("--always-succeed", action="store_true",
                        help="exit 0 even when over budget (for tests that check the report)")


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """What the caller says of the models in the image; the post-link check and the link wrapper both take them."""
    parser.add_argument("--model", action="append", default=[],
                        help="model name (C prefix) to attribute; repeat or comma-separate; "
                             "default: every model found in the image")
    parser.add_argument("--arena-group", action="append", default=[], metavar="GROUP:MODEL,...",
                        help="the models of an arena group (they share GROUP_arena); repeat or comma-separate")
    parser.add_argument("--plan", action="append", default=[], metavar="NAME.plan.json",
                        help="a model's plan (repeat): the members' own arenas, for what a group saves")


def judge_for(image, budget, args):
    """The BudgetJudge of `image` with the models, arena groups and plans `args` names."""
    from .judge import BudgetJudge, parse_groups

    models = [name for value in args.model for name in value.split(",") if name]
    return BudgetJudge(image, budget, models, parse_groups(args.arena_group), read_plans(args.plan))


def read_plans(paths) -> dict[str, dict]:
    """{model: its plan} of each NAME.plan.json named (empty names are skipped: CMake's list of none)."""
    import json

    plans = {}
    for path in filter(None, paths):
        try:
            plan = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise CompileError(f"cannot read the plan: {exc.strerror or exc}", str(path)) from None
        except ValueError:
            raise CompileError("the plan is not JSON", str(path)) from None
        if not (isinstance(plan, dict) and isinstance(plan.get("model"), str)
                and isinstance(plan.get("arena_bytes"), int)):
            raise CompileError("not a Micro Relay plan (no model name and arena_bytes)", str(path))
        plans[plan["model"]] = plan
    return plans


def _build_dir_inputs(build_dir: Path) -> tuple[Path, Path, Path | None]:
    """(elf, .config, budget YAML or None) of a Zephyr build folder."""
    from .config import read_kconfig

    if not build_dir.is_dir():
        raise CompileError("build folder not found", str(build_dir))
    elf = build_dir / "zephyr" / "zephyr.elf"
    config = build_dir / "zephyr" / ".config"
    yaml_path = None
    if config.is_file():
        relative = read_kconfig(config).get("CONFIG_MICRO_RELAY_BUDGET_YAML")
        if isinstance(relative, str) and relative:
            yaml_path = Path(relative)
            if not yaml_path.is_absolute():
                yaml_path = _application_dir(build_dir) / yaml_path
    return elf, config, yaml_path


def _application_dir(build_dir: Path) -> Path:
    cache = build_dir / "CMakeCache.txt"
    try:
        for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("APPLICATION_SOURCE_DIR:"):
                return Path(line.partition("=")[2])
    except OSError:
        pass
    raise CompileError("cannot find APPLICATION_SOURCE_DIR in the build's CMake cache", str(cache))


def run(args) -> int:
    from .config import read_kconfig, resolve_budget
    from .elf import ElfImage

    elf, config, yaml_path = args.elf, args.config, args.budget_yaml
    if args.build_dir:
        found_elf, found_config, found_yaml = _build_dir_inputs(Path(args.build_dir))
        elf = elf or found_elf
        config = config or (found_config if found_config.is_file() else None)
        yaml_path = yaml_path or found_yaml
    if not elf:
        raise CompileError("no image to check: give --elf or --build-dir", "micro-relay budget")
    kconfig = read_kconfig(config) if config else {}
    budget = resolve_budget(args.board, kconfig, yaml_path, args.ram, args.flash)
    verdict = judge_for(ElfImage(elf), budget, args).verdict()
    if args.output:
        Path(args.output).write_text(verdict.text, encoding="utf-8")
    (sys.stdout if verdict.ok else sys.stderr).write(verdict.text)
    if verdict.ok or args.always_succeed:
        return 0
    if args.withdraw_images:
        sys.stderr.write(withdraw_images(Path(elf)) + "\n")
    return EXIT_OVER_BUDGET


IMAGE_SUFFIXES = (".hex", ".bin", ".uf2", ".s19", ".exe", ".strip", ".signed.hex", ".signed.bin", ".signed.confirmed.hex",
                  ".signed.confirmed.bin", ".signed.encrypted.bin")
OVER_BUDGET_SUFFIX = ".over-budget"


def withdraw_images(elf: Path) -> str:
    """Remove the images made from `elf` and rename it NAME.elf.over-budget; the line that says what was done."""
    stem = elf.name[:-len(".elf")] if elf.name.endswith(".elf") else elf.stem
    removed = []
    for suffix in IMAGE_SUFFIXES:
        image = elf.with_name(stem + suffix)
        if image.is_file():
            image.unlink()
            removed.append(image.name)
    kept = elf.with_name(elf.name + OVER_BUDGET_SUFFIX)
    if elf.is_file():
        elf.replace(kept)
    said = f"removed {', '.join(removed)}; " if removed else ""
    return f"  nothing left to flash: {said}{elf.name} renamed {kept.name} ({elf.parent})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="micro-relay budget", description=__doc__, fromfile_prefix_chars="@",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except CompileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
