"""Bench one model on one QEMU board: compile, build the runner, run it, check the outputs, report.

Instructions per inference are the minimum over the runs of (invoke sample - empty-call sample); see
runner/timer.h for how a sample becomes an instruction count. calibrate() times spin loops of known length
with the same code, which is how the method's error is stated.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import numpy as np

from ..compiler import compile_graph, default_name, prepare_graph, write_output
from ..errors import CompileError
from ..ir.registry import get_op
from ..reference import Session, run as reference_run
from ..target import get_target, target_for_core
from .build import (COMMON_FLAGS, DEFAULT_OPT_LEVEL, arena_flag, build_runner, compile_jobs, find_tool, gcc_version,
                    instrument_invoke, opt_flag, write_model_shim)
from .cmsis_nn import build_library, find_cmsis_nn, include_dir
from .cycles.estimate import cycle_fields, cycle_setup
from .cycles.plugin import read_regions
from .machines import Machine, get_machine
from .report import image_sizes, linked_libraries
from .run import cost, qemu_version, run_qemu, samples


DEFAULT_TIMEOUT_S = 600.0
LOOP_INSTRUCTIONS = 4  # per iteration of calib_main.c's spin loop


def _tools() -> tuple[str, str]:
    return (find_tool("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
            find_tool("qemu-system-arm", "qemu-system-arm"))


@contextlib.contextmanager
def _work_dir(keep: str | Path | None):
    if keep is not None:
        path = Path(keep)
        path.mkdir(parents=True, exist_ok=True)
        yield path
    else:
        with tempfile.TemporaryDirectory(prefix="mr-bench-") as tmp:
            yield Path(tmp)


def seeded_inputs(graph, seed: int) -> list[np.ndarray]:
    """Uniform over the integer type's range, standard normal for floats, from numpy's default_rng(seed)."""
    rng = np.random.default_rng(seed)
    values = []
    for name in graph.inputs:
        t = graph.type_of(name)
        dtype = np.dtype(t.dtype.numpy)
        if dtype.kind == "f":
            values.append(rng.standard_normal(t.shape).astype(dtype))
        elif dtype.kind == "b":
            values.append(rng.integers(0, 2, t.shape).astype(dtype))
        else:
            info = np.iinfo(dtype)
            values.append(rng.integers(info.min, info.max, t.shape, endpoint=True, dtype=np.int64).astype(dtype))
    return values


def _le_bytes(array: np.ndarray) -> bytes:
    array = np.ascontiguousarray(array)
    return array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()


def _read_outputs(path: Path, graph, runs: int) -> list[list[np.ndarray]]:
    data = path.read_bytes() if path.is_file() else b""
    types = [graph.type_of(n) for n in graph.outputs]
    per_run = sum(int(np.prod(t.shape, dtype=np.int64)) * np.dtype(t.dtype.numpy).itemsize for t in types)
    if len(data) != per_run * runs:
        raise CompileError(f"runner wrote {len(data)} output bytes, expected {per_run * runs}", str(path))
    results, offset = [], 0
    for _ in range(runs):
        outputs = []
        for t in types:
            dtype = np.dtype(t.dtype.numpy).newbyteorder("<")
            count = int(np.prod(t.shape, dtype=np.int64))
            outputs.append(np.frombuffer(data, dtype, count, offset).reshape(t.shape).astype(dtype.newbyteorder("=")))
            offset += count * dtype.itemsize
        results.append(outputs)
    return results


def _compare(device: list[list[np.ndarray]], reference: list[list[np.ndarray]]) -> tuple[bool, float]:
    """Run k against reference k: integers must be equal; floats within 1e-5 of the output's largest magnitude
    (libm differs)."""
    match, worst = True, 0.0
    for outputs, expected in zip(device, reference):
        for got, want in zip(outputs, expected):
            want = np.asarray(want).reshape(got.shape)
            diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
            diff_max = float(np.nanmax(diff)) if diff.size else 0.0
            worst = max(worst, diff_max)
            if got.dtype.kind == "f":
                scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-30)
                match &= bool(np.allclose(got, want, rtol=1e-5, atol=1e-5 * scale, equal_nan=True))
            else:
                match &= bool(np.array_equal(got, want))
    return match, worst


def _macs(graph) -> int:
    return sum(int(get_op(node.op).macs(graph, node)) for node in graph.nodes)


def _model_sources(model, model_dir: Path) -> list[Path]:
    """The C files this compile wrote (a kept folder may hold other models' files too)."""
    return [model_dir / f"{model.name}.c", *(model_dir / f"mr_{kernel}.c" for kernel in model.kernels),
            *(model_dir / f"mr_cmsis_{adapter}.c" for adapter in model.adapters)]


def _profile(gcc, qemu, machine: Machine, model, sources: list[Path], model_dir: Path, work: Path,
             timeout: float, link: dict) -> list[dict]:
    """Per-layer instructions from a separate build whose invoke marks each step (1-tick resolution).

    The generated invoke numbers its steps in execution order; the plan's order maps a step to its node.
    """
    graph, name = model.graph, model.name
    prof_dir = work / "profile"
    prof_dir.mkdir(exist_ok=True)
    copies = []
    for source in sources:
        text = source.read_text()
        if source.name == f"{name}.c":
            text = instrument_invoke(text, name)
        (prof_dir / source.name).write_text(text)
        copies.append(prof_dir / source.name)
    (prof_dir / "input.bin").write_bytes((work / "input.bin").read_bytes())
    elf = build_runner(gcc, machine, model_dir, prof_dir, "bench_main.c", copies,
                       ("-DMRB_RUNS=1", "-DMRB_PROFILE"), **link)
    pairs = run_qemu(qemu, machine, elf, prof_dir, timeout)
    marks = list(zip(samples(pairs, "mark"), samples(pairs, "at")))
    layers = []
    for (step, start), (_, end) in zip(marks, marks[1:]):
        index = model.plan.order[step]
        node = graph.nodes[index]
        layers.append({"step": step, "node": index, "op": node.op, "name": node.name,
                       "instructions": (end - start) * machine.ns_per_tick,
                       "macs": int(get_op(node.op).macs(graph, node))})
    return layers


def bench_model(model_path: str | Path, machine_name: str = "mps2-an386", name: str | None = None,
                seed: int = 0, keep: str | Path | None = None, runs: int = 3,
                timeout: float = DEFAULT_TIMEOUT_S, profile: bool = False, kernels: str = "micro-relay",
                cmsis_nn: str | Path | None = None, opt_level: str = DEFAULT_OPT_LEVEL,
                target: str | None = None, oracle=None, row_by_row: str = "auto", max_recompute: float | None = None,
                patches: tuple[int, int] | None = None) -> dict:
    """Everything `micro-relay bench` prints, as a dict. kernels "cmsis-nn" builds with the CMSIS-NN library
    at `cmsis_nn` (default: $CMSIS_NN_PATH); everything is compiled at -O<opt_level>, for `target` (default:
    the machine's core, target_for_core); oracle: see bench_graph."""
    if kernels == "cmsis-nn":
        find_cmsis_nn(cmsis_nn)  # a missing library fails before the model is even read
    graph = prepare_graph(model_path)
    return bench_graph(graph, name or default_name(model_path), str(model_path), machine_name, seed, keep, runs,
                       timeout, profile, kernels, cmsis_nn, opt_level, target, oracle=oracle, row_by_row=row_by_row,
                       max_recompute=max_recompute, patches=patches)


def bench_graph(graph, name: str, source: str, machine_name: str = "mps2-an386", seed: int = 0,
                keep: str | Path | None = None, runs: int = 3, timeout: float = DEFAULT_TIMEOUT_S,
                profile: bool = False, kernels: str = "micro-relay", cmsis_nn: str | Path | None = None,
                opt_level: str = DEFAULT_OPT_LEVEL, target: str | None = None,
                kernel_options: dict[int, dict] | None = None, oracle=None, row_by_row: str = "auto",
                max_recompute: float | None = None, patches: tuple[int, int] | None = None,
                ram_budget: int | None = None) -> dict:
    """bench_model for an optimized graph (e.g. one the quantizer produced); kernel_options, row_by_row,
    max_recompute (None: the compiler's default), patches and ram_budget as in compile_graph. oracle: a function from the inputs to the outputs the device must give (e.g. TFLite Micro's
    interpreter on the model file); by default the reference interpreter. "compared_with" says which."""
    machine = get_machine(machine_name)
    target = get_target(target) if target is not None else target_for_core(machine.core)
    opt_flag(opt_level)  # an unknown level fails before anything is built
    if runs < 1:
        raise CompileError("runs must be at least 1", "--runs")
    cmsis_root = find_cmsis_nn(cmsis_nn) if kernels == "cmsis-nn" else None
    gcc, qemu = _tools()
    model = compile_graph(graph, name, Path(source).name, kernels=kernels, target=target,
                          kernel_options=kernel_options, row_by_row=row_by_row, patches=patches,
                          ram_budget=ram_budget,
                          **({} if max_recompute is None else {"max_recompute": max_recompute}))
    link: dict = {"model_flags": (arena_flag(name),), "opt_level": opt_level}
    if cmsis_root is not None:
        link = {"model_flags": (arena_flag(name), f"-isystem{include_dir(cmsis_root)}"), "opt_level": opt_level,
                "archives": (build_library(gcc, (*machine.cflags, opt_flag(opt_level), *COMMON_FLAGS), cmsis_root,
                                           compile_jobs(gcc, machine, opt_level)),)}
    model_path = source
    with _work_dir(keep) as work:
        model_dir = work / "model"
        write_output(model, model_dir)
        write_model_shim(model_dir, name)
        inputs = seeded_inputs(graph, seed)
        (work / "input.bin").write_bytes(b"".join(_le_bytes(x) for x in inputs))
        (work / "output.bin").unlink(missing_ok=True)
        sources = _model_sources(model, model_dir)
        elf = build_runner(gcc, machine, model_dir, work, "bench_main.c", sources, (f"-DMRB_RUNS={runs}",), **link)
        cycles = cycle_setup(machine.core, qemu)
        classes = work / "classes.txt"
        pairs = run_qemu(qemu, machine, elf, work, timeout,
                         () if isinstance(cycles, str) else cycles[1].arguments(elf, classes))
        raw = [cost(machine, t, s) for t, s in zip(samples(pairs, "ticks"), samples(pairs, "spins"))]
        if len(raw) != runs + 1:
            raise CompileError(f"runner reported {len(raw) - 1} of {runs} runs", str(elf))
        per_run = [r - raw[0] for r in raw[1:]]
        device = _read_outputs(work / "output.bin", graph, runs)
        if graph.states and oracle is None:  # the state carries over: run k compares with the k-th invoke
            session = Session(graph)
            expected = [session.invoke([x.copy() for x in inputs]) for _ in range(runs)]
        else:
            expected = [(oracle or (lambda xs: reference_run(graph, xs)))([x.copy() for x in inputs])] * runs
        match, max_diff = _compare(device, expected)
        macs = _macs(graph)
        instructions = min(per_run)
        result = {
            "model": str(model_path), "name": name, "machine": machine.name, "core": machine.core,
            "clock_hz": machine.clock_hz, "target": target.name, "kernels": kernels, "instructions": instructions,
            "instructions_per_run": per_run,
            "macs": macs,
            "instructions_per_mac": round(instructions / macs, 3) if macs else None,
            "macs_per_instruction": round(macs / instructions, 4) if instructions > 0 else None,
            **image_sizes(elf, name),
            "arena_bytes": model.plan.arena_bytes,
            "stack_bytes": samples(pairs, "stack")[-1],
            "outputs_match": match, "max_abs_diff": max_diff, "seed": seed,
            "compared_with": "reference interpreter" if oracle is None else getattr(oracle, "__name__", "oracle"),
            "libraries": linked_libraries(elf.with_suffix(".map")),
            "gcc": gcc_version(gcc), "qemu": qemu_version(qemu),
        }
        if isinstance(cycles, str):
            result.update({"cycles_estimate": None, "cycle_model": cycles})
        else:
            result.update(cycle_fields(read_regions(classes), runs, cycles[0], str(elf)))
        if opt_level != DEFAULT_OPT_LEVEL:
            result["opt_level"] = opt_level
        if profile:
            result["layers"] = _profile(gcc, qemu, machine, model, sources, model_dir, work, timeout, link)
    return result


def calibrate(machine_name: str, keep: str | Path | None = None, reload: int | None = None,
              timeout: float = 120.0) -> list[dict]:
    """Time spin loops of N x 4 instructions; each row: iterations, expected, measured, error.

    Each loop is measured against the 1-iteration loop (same call, same wrapper), so expected is exactly
    4 (N - 1) whatever the compiler emits around the loop, and error is the method's own. A small
    `reload` makes SysTick wrap every few thousand instructions, to exercise the wrap handling too; each
    wrap then adds the handler's few instructions, which are real executed instructions.
    """
    machine = get_machine(machine_name)
    gcc, qemu = _tools()
    with _work_dir(keep) as work:
        defines = () if reload is None else (f"-DMRB_SYSTICK_RELOAD={reload:#x}u",)
        elf = build_runner(gcc, machine, work, work, "calib_main.c", [], defines)
        pairs = run_qemu(qemu, machine, elf, work, timeout)
    raw = dict(zip(samples(pairs, "loop"),
                   (cost(machine, t, s) for t, s in zip(samples(pairs, "ticks"), samples(pairs, "spins")))))
    rows = []
    for n, r in raw.items():
        if n > 1:
            expected, measured = LOOP_INSTRUCTIONS * (n - 1), r - raw[1]
            rows.append({"iterations": n, "expected": expected, "measured": measured, "error": measured - expected})
    return rows
