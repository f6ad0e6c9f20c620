#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Check the budget report of an image over its budget (budget.yaml: RAM 1K, Flash 4K).

The report must name the board, both budgets with their source, the totals and the excess (total minus
budget), and the model's share: its arena (the size the compiler planned, read from the plan report),
its weights (the plan report's weights_bytes: one figure, and its CRC-32: the image's arrays are the ones
compiled), its code, the runtime's kernels, and a hint
for each region over budget.
"""

import argparse
import json
import re
import sys


def check(report: str, board: str, arena: int, weights_bytes: int, crc32: str) -> list[str]:
    problems = []
    lines = report.splitlines()

    def need(pattern: str, what: str):
        for line in lines:
            match = re.search(pattern, line)
            if match:
                return match
        problems.append(f"{what}: no line matches {pattern!r}")
        return None

    for index, (region, budget, source) in enumerate((("RAM", 1024, "ram=1K"), ("Flash", 4096, "flash=4K"))):
        match = need(rf"^error: {region} over budget on {re.escape(board)}: (\d+) B used, budget {budget} B "
                     rf"\(budget\.yaml default\.{source}\), (\d+) B over \(.*zephyr\.elf\)$", f"{region} verdict")
        if match and int(match.group(1)) - budget != int(match.group(2)):
            problems.append(f"{region}: excess {match.group(2)} is not {match.group(1)} - {budget}")
        if match and not lines[index].startswith(f"error: {region}"):
            problems.append(f"{region} verdict is not line {index + 1}")
    need(r"^  RAM \d+ B of 1024 B \(\d+\.\d%\), OVER, sections: ", "RAM sections")
    need(r"^  Flash \d+ B of 4096 B \(\d+\.\d%\), OVER, sections: ", "Flash sections")
    need(r"^  model sine: RAM \d+ B, Flash \d+ B$", "model share")
    need(rf"^    arena {arena} B: sine_arena {arena} B$", "arena")
    weights = need(r"^    weights (\d+) B( \([a-z]+ \d+ B(, [a-z]+ \d+ B)*\))? crc32 (0x[0-9a-f]{8}): sine_\w+ \d+ B",
                   "weights")
    if weights and int(weights.group(1)) != weights_bytes:
        problems.append(f"weights {weights.group(1)} B are not the plan's weights_bytes {weights_bytes}")
    if weights and weights.group(4) != crc32:
        problems.append(f"weights crc32 {weights.group(4)} is not the plan's {crc32}")
    need(r"^  hint: RAM: ", "RAM hint")
    need(r"^  hint: Flash: ", "Flash hint")
    need(r"^    code \d+ B: .*sine_invoke \d+ B", "code")
    need(r"^  runtime \(mr_\*\): .*mr_dense\w* \d+ B", "runtime kernels")
    if sum(line.startswith("error:") for line in lines) != 2:
        problems.append("expected exactly two error lines (RAM and Flash)")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("report")
    parser.add_argument("--board", required=True)
    parser.add_argument("--plan", required=True, help="the model's NAME.plan.json")
    args = parser.parse_args(argv)
    with open(args.report, encoding="utf-8") as handle:
        report = handle.read()
    with open(args.plan, encoding="utf-8") as handle:
        plan = json.load(handle)
    problems = check(report, args.board, plan["arena_bytes"], plan["weights_bytes"], plan["weights"]["crc32"])
    for problem in problems:
        print(f"validate_budget_output: {problem}", file=sys.stderr)
    if problems:
        print(report, file=sys.stderr)
        return 1
    print(f"validate_budget_output: report checked ({len(report.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
