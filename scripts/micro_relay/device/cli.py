"""Run a compiled model on a device from the host, through the model server (docs/device-protocol.md):

  device run MODEL --input x.npy      the outputs (printed, or --output FILE)
  device profile MODEL [--json]       per layer: op, MACs, instructions or cycles, share, kernel path
  device compare MODEL [--json]       the first layer whose output differs from the reference interpreter's
                                      (and the outputs against TFLite Micro's); exit 0 on a match, 1 otherwise
  device server MODEL -o DIR          the model server's sources for a board's own firmware (add a port)

Either --qemu BOARD (mps2-an385, mps2-an386, mps2-an500: the firmware is built and QEMU started, with exact
instruction counts), --port DEV (a board flashed with a model server built from the same model and compile
options, such as samples/model_server; pyserial is used when installed, else the tty is opened directly), or
--native-sim EXE (samples/model_server built for Zephyr's native_sim: the program is started and reached on its
UART's pseudo-terminal). Or -d BUILD, a Zephyr build folder of samples/model_server: the model and its
compile options come from the build, and the firmware is started there (native_sim, a board QEMU emulates) or,
on a flashed board, reached at --port (build_folder.py). The host refuses a device whose model hash differs.
A device that does not answer, damaged frames (retried first) and a wrong port are one line and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from ..errors import CompileError
from . import report
from .qemu import QEMU_BOARDS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="device_command", required=True)
    for name, help_text in (("run", "run the model on the device and print its outputs"),
                            ("profile", "per-layer instructions (or cycles) of one run on the device"),
                            ("compare", "find the first layer whose output on the device differs")):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("model", nargs="?", help="model file (.tflite or .onnx), compiled as the firmware was "
                                                "(default with -d: the build's)")
        p.add_argument("-d", "--build-dir", metavar="BUILD",
                       help="a Zephyr build folder of samples/model_server: its model, options and board")
        place = p.add_mutually_exclusive_group()
        place.add_argument("--port", metavar="DEV", help="serial port of a board running the model server")
        place.add_argument("--qemu", metavar="BOARD", choices=QEMU_BOARDS,
                           help=f"build the server and run it on QEMU: {', '.join(QEMU_BOARDS)}")
        place.add_argument("--native-sim", metavar="EXE", help="start a native_sim build of samples/model_server "
                                                               "(its zephyr.exe or build folder) and run there")
        p.add_argument("--input", action="append", default=[],
                       help=".npy file, one per model input (default: seeded random inputs)")
        p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
        p.add_argument("--name", help="C name of the model, as compiled for the firmware")
        p.add_argument("--target", help="the firmware's compile target (default: the emulated core, or generic)")
        p.add_argument("--kernels", choices=("micro-relay", "cmsis-nn"),
                       help="the firmware's kernel backend (default micro-relay)")
        if name != "compare":
            p.add_argument("--debug-guards", action="store_true", help="the firmware is a debug build")
        p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for a reply (default 30)")
        p.add_argument("--keep", metavar="DIR", help="build the emulator's firmware in DIR and keep it")
        if name == "run":
            p.add_argument("--output", help=".npy (one output) or .npz (several) file to write; default: print")
        else:
            p.add_argument("--json", action="store_true", help="print one JSON object")
    p = sub.add_parser("server", help="write the model server's sources for a board's firmware")
    p.add_argument("model", help="model file (.tflite or .onnx)")
    p.add_argument("-o", "--output", required=True, help="output folder")
    p.add_argument("--name", help="C name of the model (default: the file stem as a C identifier)")
    p.add_argument("--target", help="compile target (default generic), as micro-relay compile")
    p.add_argument("--kernels", choices=("micro-relay", "cmsis-nn"), default="micro-relay")
    p.add_argument("--debug-guards", action="store_true", help="a debug build (compare needs one)")


def _inputs(args, graph) -> list[np.ndarray]:
    from ..array_files import load_arrays
    from ..bench.measure import seeded_inputs

    if not args.input:
        return seeded_inputs(graph, args.seed)
    if len(args.input) != len(graph.inputs):
        raise CompileError(f"the model takes {len(graph.inputs)} inputs, got {len(args.input)}", "--input")
    arrays = []
    for path, name in zip(args.input, graph.inputs):
        array = load_arrays(path, "input array")
        if not isinstance(array, np.ndarray):
            raise CompileError("an input array file must be one .npy (an .npz holds several arrays)", path)
        t = graph.type_of(name)
        if array.size != t.size:
            raise CompileError(f"input has {array.size} elements, expected {t.size} {list(t.shape)}", path)
        arrays.append(array.astype(t.dtype.numpy, copy=False).reshape(t.shape))
    return arrays


def _write_server(args) -> int:
    from .build_folder import server_record
    from .firmware import write_server
    from .identity import model_hash
    from .session import Where, compile_for

    if not args.output:
        raise CompileError("the output folder name is empty", "-o")
    model = compile_for(args.model, Where(), args.name, args.target, args.kernels, args.debug_guards)
    write_server(model, args.output, record=server_record(model, args.model, args.output, args.debug_guards))
    print(f"wrote {args.output}: model {model.name} (hash {model_hash(model)}) and its server; build mrs_server.c, "
          f"{model.name}.c and the mr_*.c files with a port (mrs_server.h; port_dwt.c counts cycles)", file=sys.stderr)
    return 0


def run(args) -> int:
    from .session import (Where, compare_on, compile_for, failure_text, invoke_on, open_device, profile_rows,
                          read_outputs)

    if args.device_command == "server":
        return _write_server(args)
    args.zephyr_qemu = None
    if args.build_dir is not None:
        from .build_folder import apply_build_folder

        apply_build_folder(args)
    if not args.model:
        raise CompileError("name the model file, or a Zephyr build folder of samples/model_server with -d",
                           f"device {args.device_command}")
    if not (args.port is not None or args.qemu or args.native_sim or args.zephyr_qemu):
        raise CompileError("say where the model server runs: --port, --qemu, --native-sim or -d BUILD",
                           f"device {args.device_command}")
    if args.port is not None and not args.port:
        raise CompileError("the port name is empty", "--port")
    if not args.timeout > 0:
        raise CompileError(f"the time-out must be a positive number of seconds, not {args.timeout:g}", "--timeout")
    where = Where(port=args.port, qemu=args.qemu, native_sim=args.native_sim, zephyr_qemu=args.zephyr_qemu,
                  timeout=args.timeout, keep=args.keep)
    debug = args.device_command == "compare" or args.debug_guards
    model = compile_for(args.model, where, args.name, args.target, args.kernels or "micro-relay", debug)
    inputs = _inputs(args, model.graph)
    with open_device(model, where) as device:
        if args.device_command == "compare":
            result = compare_on(device, model, args.model, inputs)
            print(json.dumps(result) if args.json else report.compare_text(result))
            return 0 if result["first_divergence"] is None else 1
        invoked = invoke_on(device, model, inputs)
        if invoked.status != 0:
            print(f"error: the model's invoke on the device returned {failure_text(model, invoked)}", file=sys.stderr)
            return 1
        if args.device_command == "profile":
            if invoked.layers != len(model.plan.order):
                raise CompileError(f"the device marked {invoked.layers} of the model's {len(model.plan.order)} layers: "
                                   "build its firmware from micro-relay device server", device.where)
            rows = profile_rows(model, invoked, device.read_timings(invoked.layers), device.unit)
            print(json.dumps(rows) if args.json else report.profile_text(rows))
            return 0
        outputs = read_outputs(device, model)
    if args.output:
        from ..cli import _save_outputs

        _save_outputs(args.output, outputs)
    else:
        for index, value in enumerate(outputs):
            print(f"output {index} {model.graph.outputs[index]!r} {value.dtype}{list(value.shape)}: "
                  f"{value.ravel().tolist()}")
    print(f"ran {args.model} on {device.where}: {invoked.count} {device.unit}", file=sys.stderr)
    return 0
