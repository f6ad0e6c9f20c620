"""Build MODEL into the bare-metal runner, run it on a QEMU Cortex-M board with deterministic time and
print one JSON object: instructions per inference (minimum over the runs), MACs, Flash and RAM of the
whole image and of the model's own objects, arena and stack bytes, and whether the outputs equal the
reference interpreter's on a seeded input. Needs arm-none-eabi-gcc and qemu-system-arm on PATH.
"""

from __future__ import annotations

import argparse
import json

from .build import DEFAULT_OPT_LEVEL, OPT_LEVELS
from .machines import MACHINES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="model file (.tflite)")
    parser.add_argument("--machine", default="mps2-an386",
                        help=f"QEMU board: {', '.join(MACHINES)} (default mps2-an386)")
    parser.add_argument("--name", help="C name of the model (default: the file stem as a C identifier)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random input (default 0)")
    parser.add_argument("--keep", metavar="DIR", help="build in DIR and keep it (default: a temporary folder)")
    parser.add_argument("--runs", type=int, default=3, help="invokes to time; the minimum is reported (default 3)")
    parser.add_argument("--timeout", type=float, default=600.0, help="QEMU time limit in seconds (default 600)")
    parser.add_argument("--profile", action="store_true",
                        help="also time each layer in a separate instrumented build (adds \"layers\")")
    parser.add_argument("--kernels", choices=("micro-relay", "cmsis-nn"), default="micro-relay",
                        help="kernel backend (default micro-relay); cmsis-nn needs the CMSIS-NN library")
    parser.add_argument("--target", help="compile for this target (micro-relay compile --target; default: the "
                                         "machine's core, e.g. cortex-m4 on mps2-an386)")
    parser.add_argument("--opt-level", choices=OPT_LEVELS, default=DEFAULT_OPT_LEVEL,
                        help="compile the runner and the model at -O<level> (default s: the figures the project "
                             "reports; 0 or g checks that a debug build computes the same outputs)")
    parser.add_argument("--cmsis-nn", metavar="DIR",
                        help="CMSIS-NN checkout (Include/, Source/) for --kernels cmsis-nn (default: $CMSIS_NN_PATH)")
    from ..schedule.chains import ROW_BY_ROW

    parser.add_argument("--row-by-row", choices=ROW_BY_ROW, default="auto",
                        help="as micro-relay compile --row-by-row (default auto)")
    parser.add_argument("--max-recompute", type=float, metavar="PERCENT",
                        help="as micro-relay compile --max-recompute (default 10)")


def run(args) -> int:
    from .measure import bench_model

    result = bench_model(args.model, args.machine, name=args.name, seed=args.seed, keep=args.keep,
                         runs=args.runs, timeout=args.timeout, profile=args.profile, kernels=args.kernels,
                         cmsis_nn=args.cmsis_nn, opt_level=args.opt_level, target=args.target,
                         row_by_row=args.row_by_row, max_recompute=args.max_recompute)
    print(json.dumps(result))
    return 0
