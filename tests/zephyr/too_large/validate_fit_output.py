#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Check the build output of a model too large for the board's flash (the `wide` model, 320 KiB of weights).

The generator's check before the link must have stopped the build: one Flash verdict naming the board, the
budget and its source (CONFIG_FLASH_SIZE), the need and the excess (need minus budget); the model's parts
(arena, weights split into its parts, the weights figure equal to the parts' sum); the Flash hint; and no
linker region overflow, no Python traceback.
"""

import argparse
import re
import sys

WIDE_WEIGHTS = 1024 * 320  # the int8 weights of examples/wide_model.py: INPUTS x UNITS


def check(log: str, board: str, flash_kb: int) -> list[str]:
    problems = []
    lines = log.splitlines()

    def need(pattern: str, what: str):
        for line in lines:
            match = re.search(pattern, line)
            if match:
                return match
        problems.append(f"{what}: no line matches {pattern!r}")
        return None

    budget = flash_kb * 1024
    verdict = need(rf"^error: Flash over budget on {re.escape(board)} before linking: model wide needs (\d+) B, "
                   rf"budget {budget} B \(CONFIG_FLASH_SIZE={flash_kb}\), (\d+) B over \(.*wide\.tflite\)$",
                   "Flash verdict")
    if verdict and int(verdict.group(1)) - budget != int(verdict.group(2)):
        problems.append(f"excess {verdict.group(2)} is not {verdict.group(1)} - {budget}")
    need(r"^  model wide: RAM \d+ B, Flash \d+ B ", "model share")
    need(r"^    arena \d+ B$", "arena")
    weights = need(r"^    weights (\d+) B \(weights (\d+) B, biases (\d+) B, requantization (\d+) B\)$", "weights")
    if weights:
        total, *parts = (int(g) for g in weights.groups())
        if total != sum(parts):
            problems.append(f"weights {total} B are not the sum of their parts {parts}")
        if parts[0] != WIDE_WEIGHTS:
            problems.append(f"int8 weights {parts[0]} B, expected {WIDE_WEIGHTS}")
        if verdict and int(verdict.group(1)) != total:
            problems.append("the verdict's need is not the weights figure")
    need(r"^  hint: Flash: ", "Flash hint")
    if "overflowed by" in log:
        problems.append("the linker ran and overflowed: the check before the link did not stop the build")
    if "Traceback" in log:
        problems.append("a Python traceback")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("log", help="the build's output")
    parser.add_argument("--board", required=True, help="the board target, e.g. qemu_cortex_m3/ti_lm3s6965")
    parser.add_argument("--flash-kb", type=int, required=True, help="the board's CONFIG_FLASH_SIZE")
    args = parser.parse_args(argv)
    with open(args.log, encoding="utf-8", errors="replace") as handle:
        log = handle.read()
    problems = check(log, args.board, args.flash_kb)
    for problem in problems:
        print(f"validate_fit_output: {problem}", file=sys.stderr)
    if problems:
        return 1
    print("validate_fit_output: the build stopped before the link with the breakdown")
    return 0


if __name__ == "__main__":
    sys.exit(main())
