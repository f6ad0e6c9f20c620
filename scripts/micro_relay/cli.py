"""micro-relay: compile trained networks (TFLite) into static-memory C99 for microcontrollers.

Commands:
  compile  MODEL -o OUT   write OUT/NAME.h, OUT/NAME.c, the runtime sources and OUT/NAME.plan.json
           (MODEL: .tflite, or .onnx float / QDQ int8; see --input-shape and --io-layout;
           --quantize int8 --calibration data.npz turns a float model into an int8 one)
  inspect  MODEL          print the Micro Relay text IR (after the pass pipeline unless --raw)
  run      MODEL          run the numpy reference interpreter on .npy inputs
  budget   --elf ELF      check a linked image's RAM and Flash against a budget (exit 1 when over)
  bench    MODEL          build and run MODEL on an emulated Cortex-M board; print instructions and sizes as JSON
  device   run|profile|compare MODEL (--port DEV | --qemu BOARD | --native-sim EXE), or -d BUILD (a Zephyr
           build of samples/model_server): run it on a device through the model server;
           device server MODEL -o DIR: the server's sources for a board's firmware
  report   MODEL -o plan.html   the memory plan as a self-contained HTML page (arena against schedule, peak, MACs)
  ops                     list the supported Micro Relay ops, TFLite operators and ONNX operators

Errors in the input print one line `error: <what> (<where>)` on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def _log(message: str) -> None:
    print(message, file=sys.stderr)


def _input_shapes(specs: list[str]) -> dict[str, tuple[int, ...]]:
    """--input-shape NAME=D0,D1,... (repeatable) -> {NAME: (D0, D1, ...)}."""
    from .errors import CompileError

    shapes = {}
    for spec in specs:
        name, sep, dims = spec.rpartition("=")
        try:
            shape = tuple(int(d) for d in dims.split(","))
        except ValueError:
            shape = ()
        if not sep or not name or not shape or any(d < 1 for d in shape):
            raise CompileError(f"'{spec}' is not NAME=D0,D1,... with positive dimensions", "--input-shape")
        shapes[name] = shape
    return shapes


def _load_options(args) -> dict:
    return {"input_shapes": _input_shapes(args.input_shape), "io_layout": args.io_layout}


def _compile_names(args) -> list[str]:
    """The C name of each model, and the output folder, arena group and sections, refused before any slow work
    (compile_graph and write_models check them again for API callers)."""
    from .codegen.arena_group import check_group
    from .codegen.names import check_model_name, check_section_name
    from .compiler import default_name, runtime_stems
    from .errors import CompileError

    if not args.output:
        raise CompileError("the output folder name is empty", "-o")
    if args.name is not None and len(args.model) > 1:
        raise CompileError(f"--name names one model, and {len(args.model)} are given: each takes its file's stem",
                           "--name")
    if getattr(args, "calibration", None) and len(args.model) > 1:
        raise CompileError("--calibration holds one model's samples: quantize the models one compile each",
                           "--calibration")
    names = [args.name] if args.name is not None else [default_name(m) for m in args.model]
    for name in names:
        check_model_name(name, runtime_stems())
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise CompileError(f"two models would both be named '{twice[0]}': rename a file", "compile")
    if args.arena_group is not None:
        check_group(args.arena_group, names, runtime_stems())
    if args.arena_section is not None:
        check_section_name(args.arena_section)
    if args.weights_section is not None:
        check_section_name(args.weights_section, "--weights-section")
    return names


def _cmd_compile(args) -> int:
    from .budget import before_link
    from .budget.config import parse_size
    from .compiler import compile_graph, group_files, prepare_graph, write_models
    from .quantize.cli_options import apply as apply_quantization

    names = _compile_names(args)
    ram_budget = parse_size(args.ram_budget, "--ram-budget") if args.ram_budget else None  # the schedule's too
    models, reports = [], []
    for path, name in zip(args.model, names):
        start = time.perf_counter()
        graph = prepare_graph(path, **_load_options(args))
        graph = apply_quantization(graph, args, log=reports.append)  # unchanged without --quantize
        model = compile_graph(graph, name, Path(path).name, args.arena_section, kernels=args.kernels,
                              target=args.target, weights_section=args.weights_section,
                              debug_guards=args.debug_guards, arena_group=args.arena_group,
                              row_by_row=args.row_by_row, ram_budget=ram_budget,
                              **({} if args.max_recompute is None else {"max_recompute": args.max_recompute}))
        over = before_link.check(json.loads(model.files[f"{name}.plan.json"]), args, path)
        if over:
            return over  # nothing written: the build stops here, before a link that would fail
        models.append((path, graph, model, time.perf_counter() - start))
    arenas = {m.name: m.plan.arena_bytes for _, _, m, _ in models}
    grouped = args.arena_group and not args.no_group_files
    group = group_files(args.arena_group, arenas, args.arena_section) if grouped else {}
    write_models([m for _, _, m, _ in models], args.output, with_runtime=not args.no_runtime, extra_files=group)
    for report in reports:  # the quantization report, once the files are written: a failure stays one line
        _log(report)
    for path, graph, model, elapsed in models:  # each model's own time, from its file to its checked plan
        plan = model.plan
        state = f"and state {plan.state.state_bytes} B (kept between invokes) " if plan.state else ""
        _log(f"compiled {path} -> {args.output}/{model.name}.c: {len(graph.nodes)} nodes, arena {plan.arena_bytes} B "
             f"(lower bound {plan.lower_bound} B, order {plan.order_name}, planner {plan.planner}) {state}in "
             f"{elapsed:.2f} s")
        schedule = _schedule_line(json.loads(model.files[f"{model.name}.plan.json"]).get("row_by_row") or {})
        if schedule:
            _log(schedule)
    if group:
        _log_group(args.arena_group, arenas, args.output)
    return 0


def _schedule_line(rows: dict) -> str:
    """What the compile chose beyond layer by layer (the plan's row_by_row entry), in one line; "" for nothing."""
    if not rows.get("runs"):
        return ""
    grids = [f"{r['patches'][0]}x{r['patches'][1]}" for r in rows["runs"] if r["patches"] != [1, 1]]
    patched = f", {len(grids)} in patches ({', '.join(grids)})" if grids else ""
    extra = rows.get("extra_macs") or 0
    share = f" ({100 * extra / rows['model_macs']:.1f}% of the model's)" if extra and rows.get("model_macs") else ""
    whole = rows.get("arena_layer_by_layer")
    return (f"  row by row: {len(rows['runs'])} chain(s) of convolutions{patched}, {extra:,} MACs recomputed{share}"
            + (f"; layer by layer the arena would be {whole} B" if whole else ""))


def _log_group(group: str, arenas: dict[str, int], output: str) -> None:
    from .codegen.arena_group import group_arena_bytes

    largest, separate = group_arena_bytes(arenas), sum(arenas.values())
    _log(f"arena group {group} -> {output}/{group}_arena.c: {largest} B shared by {', '.join(arenas)} (separate "
         f"arenas: {separate} B, {separate - largest} B saved)")


def _cmd_arena_group(args) -> int:
    """The group's files from its members' NAME.plan.json (the CMake integration: each member compiles apart)."""
    from .compiler import group_files, write_models
    from .errors import CompileError

    arenas = {}
    for path in args.plans:
        try:
            plan = json.loads(Path(path).read_text())
            name, size, group = plan["model"], int(plan["arena_bytes"]), plan.get("arena_group")
        except FileNotFoundError:
            raise CompileError("plan file not found", path) from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CompileError(f"not a Micro Relay plan report ({type(exc).__name__})", path) from None
        if group != args.group:
            compiled = "without an arena group" if group is None else f"for the arena group '{group}'"
            raise CompileError(f"model '{name}' was compiled {compiled}, not for '{args.group}'", path)
        if name in arenas:
            raise CompileError(f"model '{name}' is given twice", path)
        arenas[name] = size
    write_models([], args.output, with_runtime=False, extra_files=group_files(args.group, arenas, args.arena_section))
    _log_group(args.group, arenas, args.output)
    return 0


def _cmd_inspect(args) -> int:
    from .frontend import load_model
    from .ir.text import print_graph
    from .ir.verify import verify
    from .passes import run_pipeline

    graph = load_model(args.model, **_load_options(args))
    graph = verify(graph) if args.raw else run_pipeline(graph)
    sys.stdout.write(print_graph(graph, elide_data=not args.full))
    return 0


def _cmd_run(args) -> int:
    import numpy as np

    from .compiler import prepare_graph
    from .errors import CompileError
    from .reference import run

    graph = prepare_graph(args.model, **_load_options(args))
    from .array_files import load_arrays

    inputs = []
    for path in args.input:
        array = load_arrays(path, "input array")  # headers checked against the file before any allocation
        if not isinstance(array, np.ndarray):
            raise CompileError("an input array file must be one .npy (an .npz holds several arrays)", path)
        inputs.append(array)
    start = time.perf_counter()
    outputs = run(graph, inputs)
    elapsed = time.perf_counter() - start
    if args.output:
        _save_outputs(args.output, outputs)  # before the log line: a failed write stays one error line
    _log(f"ran {args.model} in {elapsed:.3f} s")
    if not args.output:
        for index, value in enumerate(outputs):
            print(f"output {index} {graph.outputs[index]!r} {value.dtype}{list(value.shape)}: {value.ravel().tolist()}")
    return 0


def _save_outputs(path: str, outputs) -> None:
    """One output as .npy, several as .npz (the suffix added when missing, as numpy does), written to a
    temporary file beside it and renamed: a failed write is one error line and leaves nothing behind."""
    import io
    import os
    import secrets

    import numpy as np

    from .errors import CompileError

    buffer = io.BytesIO()
    if len(outputs) == 1:
        np.save(buffer, outputs[0])
        suffix = ".npy"
    else:
        np.savez(buffer, **{f"output{i}": o for i, o in enumerate(outputs)})
        suffix = ".npz"
    target = Path(path if path.endswith(suffix) else path + suffix)
    temporary = target.with_name(f".mr-{target.name[:16]}-{secrets.token_hex(4)}")
    try:
        if target.is_dir():
            raise CompileError("the output path is a directory", str(target))
        with open(temporary, "xb") as handle:
            handle.write(buffer.getvalue())
        os.replace(temporary, target)
    except OSError as exc:
        _remove_quietly(temporary)
        raise CompileError(f"cannot write the outputs: {exc.strerror or exc}", str(target)) from None
    except BaseException:
        _remove_quietly(temporary)
        raise


def _remove_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _cmd_budget(args) -> int:
    from .budget.cli import run

    return run(args)


def _cmd_bench(args) -> int:
    from .bench.cli import run

    return run(args)


def _cmd_device(args) -> int:
    from .device.cli import run

    return run(args)


def _cmd_report(args) -> int:
    from .picture.cli import run

    return run(args)


def _cmd_ops(args) -> int:
    from .frontend.relax.importers import SUPPORTED_ONNX_OPS
    from .frontend.tflite.builtins import CONVERTERS
    from .frontend.tflite.builtins.custom import CUSTOM_CONVERTERS
    from .frontend.tflite.reader import BUILTIN_NAMES
    from .ir.registry import all_ops

    print("Micro Relay ops (element types):")
    for name, op in all_ops().items():
        made = "  (made by the compiler: layers run row by row)" if getattr(op, "made_by_compiler", False) else ""
        print(f"  {name:<24} {', '.join(d.value for d in op.dtypes)}{made}")
    print("TFLite operators: " + ", ".join(sorted(BUILTIN_NAMES.get(code, str(code)) for code in CONVERTERS)))
    print("TFLite custom operators: " + ", ".join(sorted(CUSTOM_CONVERTERS)))
    print("ONNX operators: " + ", ".join(sorted(SUPPORTED_ONNX_OPS)))
    return 0


def _row_by_row_argument(p) -> None:
    from .schedule.chains import ROW_BY_ROW

    p.add_argument("--row-by-row", choices=ROW_BY_ROW, default="auto",
                   help="run chains of convolutions row by row, their tensors in between kept a few rows at a time: "
                        "auto (default): where that makes the arena smaller for fewer extra instructions than the "
                        "share of the arena it saves, or, with --ram-budget, only when the layer-by-layer arena does "
                        "not fit it; always; never (layer by layer)")
    p.add_argument("--max-recompute", type=float, default=None, metavar="PERCENT",
                   help="the most multiply-accumulates, in percent of the model's, that patches may compute twice "
                        "to run a chain's high-resolution layers patch by patch in a smaller arena (default 10; "
                        "0: no patches)")


def _model_options(p) -> None:
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0,D1,...",
                   help="static shape of an ONNX input with dynamic dimensions (repeatable)")
    p.add_argument("--io-layout", choices=("nhwc", "nchw"), default="nhwc",
                   help="ONNX 4-D inputs/outputs: nhwc (default, no runtime transpose) or the model's nchw")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="micro-relay", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    from . import __version__

    parser.add_argument("--version", action="version", version=f"micro-relay {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("compile", help="compile a model to C")
    p.add_argument("model", nargs="+", help="model file (.tflite or .onnx); several are compiled into one folder")
    p.add_argument("-o", "--output", required=True, help="output folder")
    _model_options(p)
    p.add_argument("--name", help="C name of the model (default: the file stem as a C identifier)")
    p.add_argument("--arena-group", metavar="GROUP",
                   help="the models share one arena, GROUP_arena (GROUP_arena.c), sized to the largest: one of them "
                        "runs at a time")
    p.add_argument("--no-group-files", action="store_true",
                   help="with --arena-group: write the models only; `micro-relay arena-group` writes the group's "
                        "files from the plans of all its members (each compiled apart)")
    p.add_argument("--arena-section", help="place the static arena (or the group's) in this linker section")
    p.add_argument("--weights-section", help="place the weights, biases, requantization arrays and tables in this "
                                             "linker section (e.g. one in external flash)")
    p.add_argument("--no-runtime", action="store_true", help="do not copy the runtime sources into the output")
    p.add_argument("--debug-guards", action="store_true",
                   help="debug build: a canary after every tensor and scratch buffer, checked after each layer "
                        "(MR_ERR_GUARD names the layer that wrote out of bounds), every tensor kept for the run")
    _row_by_row_argument(p)
    from .target import DEFAULT_TARGET, TARGETS

    p.add_argument("--target", choices=tuple(TARGETS), default=DEFAULT_TARGET,
                   help="the core the C runs on (default generic: portable C, no DSP scratch); cortex-m4, m7, m33 "
                        "and m55 get the Arm DSP kernels and the arena scratch they gather windows into")
    p.add_argument("--kernels", choices=("micro-relay", "cmsis-nn"), default="micro-relay",
                   help="kernel backend: micro-relay (default) or cmsis-nn (int8 conv2d, depthwise conv2d and "
                        "dense call CMSIS-NN through crt/cmsis_nn adapters; build with CMSIS-NN's Include/ and "
                        "sources)")
    from .quantize import cli_options as quantize_cli

    quantize_cli.add_arguments(p)
    from .budget import before_link

    before_link.add_arguments(p)
    p.set_defaults(func=_cmd_compile)

    p = sub.add_parser("arena-group", help="write an arena group's files from its members' NAME.plan.json")
    p.add_argument("group", help="the group's name (the --arena-group its members were compiled with)")
    p.add_argument("plans", nargs="+", metavar="PLAN", help="each member's NAME.plan.json")
    p.add_argument("-o", "--output", required=True, help="output folder of GROUP_arena.h and GROUP_arena.c")
    p.add_argument("--arena-section", help="place the group's arena in this linker section")
    p.set_defaults(func=_cmd_arena_group)

    p = sub.add_parser("inspect", help="print the Micro Relay text IR")
    p.add_argument("model")
    p.add_argument("--raw", action="store_true", help="as imported, before the pass pipeline")
    p.add_argument("--full", action="store_true", help="include constant data (parseable text)")
    _model_options(p)
    p.set_defaults(func=_cmd_inspect)

    p = sub.add_parser("run", help="run the numpy reference interpreter")
    p.add_argument("model")
    p.add_argument("--input", action="append", default=[], help=".npy file, one per model input, in order")
    p.add_argument("--output", help=".npy (one output) or .npz (several) file to write; default: print")
    _model_options(p)
    p.set_defaults(func=_cmd_run)

    from .budget import cli as budget_cli

    p = sub.add_parser("budget", help="check a linked image against RAM and Flash budgets",
                       description=budget_cli.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                       fromfile_prefix_chars="@")  # @FILE: arguments one per line (the Zephyr module's models)
    budget_cli.add_arguments(p)
    p.set_defaults(func=_cmd_budget)

    from .bench import cli as bench_cli

    p = sub.add_parser("bench", help="measure a model on an emulated Cortex-M board (QEMU)",
                       description=bench_cli.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    bench_cli.add_arguments(p)
    p.set_defaults(func=_cmd_bench)

    from .device import cli as device_cli

    p = sub.add_parser("device", help="run a model on a device from the host: outputs, profile, compare",
                       description=device_cli.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    device_cli.add_arguments(p)
    p.set_defaults(func=_cmd_device)

    from .picture import cli as picture_cli

    p = sub.add_parser("report", help="the memory plan as a self-contained HTML page",
                       description=picture_cli.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    picture_cli.add_arguments(p)
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("ops", help="list the supported ops and operators")
    p.set_defaults(func=_cmd_ops)
    return parser


def main(argv: list[str] | None = None) -> int:
    from .errors import CompileError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CompileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
