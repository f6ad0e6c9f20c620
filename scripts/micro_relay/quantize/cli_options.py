"""The command-line face of post-training quantization, for `micro-relay compile`.

    micro-relay compile model.tflite -o out --quantize int8 --calibration data.npz \
        [--calibration-method minmax|percentile|mse] [--percentile 99.99] [--per-tensor-weights] \
        [--keep-float OP ...] [--int16 OP ...] [--int8-io]

`add_arguments(parser)` adds the flags; `apply(graph, args)` returns the graph unchanged when --quantize is
absent, else the quantized graph, and prints the quantization report on stderr.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import CompileError
from ..ir.graph import Graph
from .observe import METHODS
from .post_training import quantize_with_report
from .rewrite import QuantizeOptions

DEPENDENT_FLAGS = ("calibration", "per_tensor_weights", "keep_float", "int16", "int8_io")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("post-training quantization")
    group.add_argument("--quantize", choices=("int8",),
                       help="quantize a float model to int8 activations and weights (needs --calibration)")
    group.add_argument("--calibration", metavar="PATH",
                       help=".npz with one array per input keyed by input name (or .npy for one input), each "
                            "(N, *model_input_shape) with the batch dimension included, in the model's own layout "
                            "(NCHW for an NCHW ONNX or PyTorch model, whatever --io-layout says)")
    group.add_argument("--calibration-method", choices=METHODS, default="minmax",
                       help="how activation ranges are chosen (default: minmax)")
    group.add_argument("--percentile", type=float, default=99.99,
                       help="percentile kept by --calibration-method percentile (default: 99.99)")
    group.add_argument("--per-tensor-weights", action="store_true",
                       help="one weight scale per tensor instead of one per output channel")
    group.add_argument("--keep-float", metavar="OP", action="append", default=[],
                       help="run this op (e.g. nn.softmax) in float, between dequantize and quantize; repeatable")
    group.add_argument("--int16", metavar="OP", action="append", default=[],
                       help="run this op (or node) with int16 activations and int8 weights, TFLite's 16x8 scheme, "
                            "for layers int8 hurts; repeatable")
    group.add_argument("--int8-io", action="store_true",
                       help="int8 model inputs and outputs (scale and zero point in the header) instead of float")


def options_from(args: argparse.Namespace) -> QuantizeOptions:
    return QuantizeOptions(method=args.calibration_method, percentile=args.percentile,
                           per_channel=not args.per_tensor_weights, keep_float=tuple(args.keep_float),
                           int8_io=args.int8_io, int16=tuple(args.int16))


def apply(graph: Graph, args: argparse.Namespace, log=None) -> Graph:
    """The graph to compile: unchanged without --quantize, else quantized (report on stderr, or to `log`)."""
    if getattr(args, "quantize", None) is None:
        used = [f"--{f.replace('_', '-')}" for f in DEPENDENT_FLAGS if getattr(args, f, None)]
        if used:
            raise CompileError(f"{used[0]} needs --quantize int8", used[0])
        return graph
    if not args.calibration:
        raise CompileError("--quantize int8 needs calibration samples: --calibration data.npz", "--calibration")
    quantized, report = quantize_with_report(graph, args.calibration, options_from(args))
    (log or (lambda text: print(text, file=sys.stderr)))(report.format())
    return quantized
