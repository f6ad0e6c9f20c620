#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Fail the build when the model was compiled for another target than the board's core must get.

The expected target comes from the Twister scenario (testcase.yaml: MATRIX_TARGET), written down per core
from its data sheet (DSP extension or not), not from the CMake function under test.
"""

import argparse
import json
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("plan", help="the model's NAME.plan.json")
    parser.add_argument("--expect", required=True, help="the target the board's core must get")
    parser.add_argument("--board", required=True)
    parser.add_argument("--output", required=True, help="written when the target is right")
    args = parser.parse_args(argv)
    with open(args.plan, encoding="utf-8") as handle:
        target = json.load(handle)["target"]
    if target != args.expect:
        print(f"check_target: {args.board}: the model was compiled for {target}, expected {args.expect}",
              file=sys.stderr)
        return 1
    with open(args.output, "w", encoding="utf-8") as handle:
        handle.write(f"{args.board}: {target}\n")
    print(f"check_target: {args.board}: compiled for {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
