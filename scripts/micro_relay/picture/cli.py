"""Write MODEL's memory plan as a self-contained HTML page: the arena offset of every buffer against the
schedule step, the peak, and per-layer MACs; with --profile, also the instructions (or cycles) of a
`micro-relay bench --profile` or `micro-relay device profile --json` run."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="model file (.tflite or .onnx)")
    parser.add_argument("-o", "--output", required=True, help="the HTML file to write")
    parser.add_argument("--profile", metavar="JSON", help="per-layer counts to draw beside the MACs")
    parser.add_argument("--name", help="C name of the model (default: the file stem as a C identifier)")
    parser.add_argument("--target", default=None, help="compile target (as micro-relay compile; default generic)")
    parser.add_argument("--kernels", choices=("micro-relay", "cmsis-nn"), default="micro-relay")
    parser.add_argument("--debug-guards", action="store_true", help="picture the debug build's plan")


def run(args) -> int:
    from ..compiler import compile_graph, default_name, prepare_graph
    from ..target import DEFAULT_TARGET
    from .page import page, read_profile, write_page

    measured, unit = read_profile(args.profile) if args.profile else (None, "instructions")
    model = compile_graph(prepare_graph(args.model), args.name or default_name(args.model), args.model,
                          kernels=args.kernels, target=args.target or DEFAULT_TARGET, debug_guards=args.debug_guards)
    write_page(page(model, measured, unit), args.output)
    print(f"wrote {args.output}: arena {model.plan.arena_bytes} B over {len(model.plan.order)} steps", file=sys.stderr)
    return 0
