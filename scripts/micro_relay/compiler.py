"""The compile driver: model file -> IR -> passes -> memory plan -> C files in an output folder.

Everything is computed in memory first and written last, each file through a temporary name and an atomic
rename, so a failing compile leaves no partial output.

`kernels` picks the kernel backend: "micro-relay" (default, crt/src) or "cmsis-nn" (int8 conv2d, depthwise
conv2d and dense through the adapters in crt/cmsis_nn/, ops/_cmsis_nn.py). It holds for the planning,
emission and report of one compile_graph call; the graph and the passes never see it.

Before planning, plan/room.py gives kernels that run faster with more scratch the variant that fits the arena
the model needs anyway (`room=False` keeps every kernel's default).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .codegen.c_text import c_identifier
from .codegen.emit import emit_model
from .errors import CompileError
from .frontend import load_model
from .ir.graph import Graph
from .ir.registry import get_op
from .ir.types import MAX_TENSOR_BYTES
from .ops._cmsis_nn import DEFAULT_BACKEND, HEADER, KERNEL_BACKENDS, fallback_note, kernel_backend
from .passes import run_pipeline
from .plan.memory_plan import MemoryPlan, plan_memory
from .plan.report import plan_report
from .plan.room import use_room

CRT_DIR = Path(__file__).resolve().parents[2] / "crt"


@dataclass(frozen=True)
class CompiledModel:
    name: str
    graph: Graph
    plan: MemoryPlan
    files: dict[str, str]  # file name -> text (generated model files and the plan report)
    kernels: tuple[str, ...]  # runtime kernel sources (crt/src/mr_<kernel>.c) the model calls
    adapters: tuple[str, ...] = ()  # CMSIS-NN adapter sources (crt/cmsis_nn/mr_cmsis_<adapter>.c) it calls
    kernel_backend: str = DEFAULT_BACKEND


def default_name(model_path: str | Path) -> str:
    return c_identifier(Path(model_path).stem)


def prepare_graph(model_path: str | Path, input_shapes: dict | None = None, io_layout: str = "nhwc") -> Graph:
    """Load and optimize a model: the graph the planner and emitter see."""
    return run_pipeline(load_model(model_path, input_shapes, io_layout))


def compile_graph(graph: Graph, name: str, source: str, arena_section: str | None = None,
                  planners: tuple[str, ...] | None = None, kernels: str = DEFAULT_BACKEND,
                  room: bool = True) -> CompiledModel:
    if c_identifier(name) != name:
        raise CompileError(f"model name '{name}' is not a C identifier", "--name")
    if kernels not in KERNEL_BACKENDS:
        raise CompileError(f"unknown kernel backend '{kernels}' (choose from {', '.join(KERNEL_BACKENDS)})",
                           "--kernels")
    for node in graph.nodes:  # every op's compile-time checks run before any file is written
        get_op(node.op).prepare(graph, node)
    with kernel_backend(kernels):
        graph, choices = use_room(graph, planners) if room else (graph, ())
        plan = plan_memory(graph, planners)
        if plan.arena_bytes > MAX_TENSOR_BYTES:  # with scratch, over what the C size fields hold
            raise CompileError(f"the arena needs {plan.arena_bytes} bytes, over the {MAX_TENSOR_BYTES} a 32-bit target "
                               "can address", f"model '{name}'")
        emitted = emit_model(name, graph, plan, source, arena_section)
        report = plan_report(name, graph, plan, source, choices)
        _note_fallbacks(graph, report)
    used = tuple(emitted.pop("__kernels__"))
    adapters = tuple(emitted.pop("__adapters__"))
    if kernels != DEFAULT_BACKEND:
        report["kernels"] = kernels
    emitted[f"{name}.plan.json"] = json.dumps(report, indent=2) + "\n"
    return CompiledModel(name, graph, plan, emitted, used, adapters, kernels)


def _note_fallbacks(graph: Graph, report: dict) -> None:
    """With the CMSIS-NN backend, say in the report's kernel field why a node keeps our kernel."""
    for entry in report["nodes"]:
        node = graph.nodes[entry["node"]]
        note = fallback_note(graph, node, get_op(node.op).prepare(graph, node))
        if note:
            entry["kernel"] = {**entry.get("kernel", {}), **note}


def runtime_files(kernels, adapters=()) -> dict[str, Path]:
    """Output file name -> runtime source: every CRT header and the kernel sources the model calls, and for
    the CMSIS-NN backend the adapters' header and the adapter sources it calls (they need CMSIS-NN's
    Include/ on the include path and its sources in the build)."""
    files = {f"micro_relay/{p.name}": p for p in sorted((CRT_DIR / "include" / "micro_relay").glob("*.h"))}
    for kernel in kernels:
        files[f"mr_{kernel}.c"] = CRT_DIR / "src" / f"mr_{kernel}.c"
    if adapters:
        files[HEADER] = CRT_DIR / "cmsis_nn" / HEADER
    for adapter in adapters:
        files[f"mr_cmsis_{adapter}.c"] = CRT_DIR / "cmsis_nn" / f"mr_cmsis_{adapter}.c"
    return files


def write_output(model: CompiledModel, out_dir: str | Path, with_runtime: bool = True) -> list[Path]:
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise CompileError("output path exists and is not a directory", str(out_dir))
    contents: dict[str, bytes] = {k: v.encode() for k, v in model.files.items()}
    if with_runtime:
        for rel, src in runtime_files(model.kernels, model.adapters).items():
            contents[rel] = src.read_bytes()
    written = []
    for rel, data in sorted(contents.items()):
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() and target.read_bytes() == data:
            written.append(target)  # unchanged: keep the timestamp so builds do not redo work
            continue
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".mr-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
        written.append(target)
    return written


def compile_file(model_path: str | Path, out_dir: str | Path, name: str | None = None,
                 arena_section: str | None = None, with_runtime: bool = True, input_shapes: dict | None = None,
                 io_layout: str = "nhwc", kernels: str = DEFAULT_BACKEND) -> CompiledModel:
    graph = prepare_graph(model_path, input_shapes, io_layout)
    model = compile_graph(graph, name or default_name(model_path), Path(model_path).name, arena_section,
                          kernels=kernels)
    write_output(model, out_dir, with_runtime)
    return model


__all__ = ["CompiledModel", "compile_file", "compile_graph", "prepare_graph", "write_output"]
