"""The budget check before the link: does the model itself fit the board?

A model too large for the board's memory makes the linker fail first (`region 'FLASH' overflowed by N
bytes`), and the check after the link, with its breakdown, never runs. But the compiler knows, before any C
is written, what the model takes: its arena (and state) in RAM, its weights in flash (codegen/constants.py).
So `micro-relay compile` holds those against the same budget the post-link check uses (config.resolve_budget:
the board's CONFIG_SRAM_SIZE / CONFIG_FLASH_SIZE, the CONFIG_MICRO_RELAY_*_BUDGET_KB limits, the budget
YAML's entry for the board, --ram-budget / --flash-budget), and when one of them alone is over, stops with the
same kind of report as the post-link check (board, budget and its source, need, excess, the model's parts)
and a hint, exit status 1, and writes no file.

What is counted here is a lower bound of the image: the model's parameter structs and code, the runtime's
kernels and the rest of the firmware are known after the link only, where the post-link check judges the
whole image. Each model is checked alone: an application with several models is judged whole after the link.
"""

from __future__ import annotations

import argparse
import sys

from .config import Budget, Limit, read_kconfig, resolve_budget
from .elf import FLASH, RAM
from .judge import hint_lines

EXIT_OVER_BUDGET = 1
_TITLE = {RAM: "RAM", FLASH: "Flash"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("budget before the link (the model alone against the board's memory)")
    group.add_argument("--budget-config", metavar="DOTCONFIG",
                       help="a Zephyr build's .config: CONFIG_SRAM_SIZE, CONFIG_FLASH_SIZE, CONFIG_MICRO_RELAY_* limits")
    group.add_argument("--budget-yaml", help="per-board budget file (micro-relay budget's format)")
    group.add_argument("--board", help="board (target) of the budget YAML entry; default: CONFIG_BOARD_TARGET")
    group.add_argument("--ram-budget", metavar="SIZE", help="RAM limit, e.g. 64K; also what the model may take: "
                                                            "its chains run row by row only when the layer-by-layer "
                                                            "arena does not fit it (--row-by-row auto)")
    group.add_argument("--flash-budget", metavar="SIZE", help="Flash limit, e.g. 256K")


def budget_of(args) -> Budget | None:
    """The budget the options give, or None when they give none (no check)."""
    if not any((args.budget_config, args.budget_yaml, args.ram_budget, args.flash_budget)):
        return None
    kconfig = read_kconfig(args.budget_config) if args.budget_config else {}
    budget = resolve_budget(args.board, kconfig, args.budget_yaml, args.ram_budget, args.flash_budget)

    def named(limit: Limit | None, region: str) -> Limit | None:  # the option's name as this command spells it
        if limit is None or not limit.source.startswith(f"--{region} "):
            return limit
        return Limit(limit.bytes, f"--{region}-budget " + limit.source.split(" ", 1)[1])

    return Budget(budget.board, named(budget.ram, "ram"), named(budget.flash, "flash"))


def model_needs(report: dict) -> dict[str, int]:
    """What the model alone takes, from its plan report: RAM (arena and state) and Flash (weights)."""
    return {RAM: report["arena_bytes"] + report.get("state_bytes", 0), FLASH: report["weights_bytes"]}


def failure_lines(report: dict, budget: Budget, where: str, placed: tuple[str, ...] = ()) -> list[str]:
    """The report of a model over budget before the link; [] when it fits. `placed`: the regions (RAM, FLASH)
    whose part of the model goes to a linker section of the user's (--arena-section, --weights-section), which
    may be another memory (a CCM, an external flash): only the post-link check, by address, can judge those."""
    needs = model_needs(report)
    limits: dict[str, Limit | None] = {RAM: budget.ram, FLASH: budget.flash}
    for region in placed:
        limits[region] = None
    over = [r for r in (RAM, FLASH) if limits[r] is not None and needs[r] > limits[r].bytes]
    if not over:
        return []
    board, name = budget.board or "(no board)", report["model"]
    lines = [f"error: {_TITLE[r]} over budget on {board} before linking: model {name} needs {needs[r]} B, "
             f"budget {limits[r].bytes} B ({limits[r].source}), {needs[r] - limits[r].bytes} B over ({where})"
             for r in over]
    lines.append(f"  model {name}: RAM {needs[RAM]} B, Flash {needs[FLASH]} B and its parameter structs and code "
                 "(counted after the link)")
    rows = report.get("row_by_row") or {}
    if rows.get("runs") and rows.get("arena_layer_by_layer"):
        patched = sum(1 for run in rows["runs"] if run.get("patches", [1, 1]) != [1, 1])
        extra = rows.get("extra_macs") or 0
        share = f" ({100 * extra / rows['model_macs']:.1f}% of the model's)" if extra and rows.get("model_macs") else ""
        lines.append(f"    arena {report['arena_bytes']} B, the smallest reachable: {len(rows['runs'])} chain(s) of "
                     f"convolutions row by row, {patched} of them in patches, {extra:,} extra MACs{share} "
                     f"(layer by layer {rows['arena_layer_by_layer']} B; --max-recompute allows more patches)")
    else:
        lines.append(f"    arena {report['arena_bytes']} B")
    if report.get("state_bytes"):
        lines.append(f"    state {report['state_bytes']} B")
    parts = report["weights"]
    shown = ", ".join(f"{part} {parts[part]} B" for part in ("weights", "biases", "requantization", "tables")
                      if parts[part])
    lines.append(f"    weights {report['weights_bytes']} B" + (f" ({shown})" if shown else ""))
    return lines + hint_lines(over)


def check(report: dict, args, where: str) -> int:
    """0 when the options give no budget or the model fits it; else print the report and return 1."""
    budget = budget_of(args)
    placed = tuple(region for region, section in ((RAM, getattr(args, "arena_section", None)),
                                                   (FLASH, getattr(args, "weights_section", None))) if section)
    lines = failure_lines(report, budget, where, placed) if budget is not None else []
    if lines:
        sys.stderr.write("\n".join(lines) + "\n")
        return EXIT_OVER_BUDGET
    return 0
