"""The compile driver: model file -> IR -> passes -> memory plan -> C files in an output folder.

Everything is computed in memory first and written last, through a staging folder and renames
(write_output), so a failing compile leaves no partial output. The model name and the arena section are
checked first (codegen/names.py), for API callers as for the command line.

`target` names the core (target/: generic, the default, is portable C; a DSP core gets the Arm DSP kernels and
their scratch) and `kernels` the kernel backend: "micro-relay" (default, crt/src) or "cmsis-nn" (int8 conv2d,
depthwise conv2d and dense through the adapters in crt/cmsis_nn/, kernels/cmsis_nn/). compile_graph lowers the
graph once for them (lower/: the kernel of every node and its plan), and the room search, the memory planner,
the emitter and the report all read that one lowering; the graph and the passes never see the target.

Before planning, plan/room.py gives kernels that run faster with more scratch the variant that fits the arena
the model needs anyway (`room=False` keeps every kernel's default).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from .codegen.c_text import c_identifier
from .codegen.crt import CRT_DIR
from .codegen.arena_group import check_group, emit_group
from .codegen.emit import ARENA_ALIGN, emit_model
from .codegen.names import check_model_name, check_section_name
from .errors import CompileError
from .frontend import load_model
from .ir.graph import Graph
from .ir.types import MAX_TENSOR_BYTES
from .kernels.cmsis_nn._adapters import HEADER
from .lower import DEFAULT_BACKEND, Lowered, lower
from .passes import run_pipeline
from .plan.memory_plan import MemoryPlan, plan_memory
from .plan.report import plan_report
from .plan.room import use_room
from .plan.state import store_states_in_place
from .schedule.chains import MAX_RECOMPUTE, RowsChoice, fuse_rows
from .schedule.lean import lean_for_budget
from .target import DEFAULT_TARGET, Target, get_target




@dataclass(frozen=True)
class CompiledModel:
    name: str
    lowered: Lowered  # the graph, the target, and the kernel of every node
    plan: MemoryPlan
    files: dict[str, str]  # file name -> text (generated model files and the plan report)
    kernels: tuple[str, ...]  # runtime kernel sources (crt/src/mr_<kernel>.c) the model calls
    adapters: tuple[str, ...] = ()  # CMSIS-NN adapter sources (crt/cmsis_nn/mr_cmsis_<adapter>.c) it calls

    @property
    def graph(self) -> Graph:
        return self.lowered.graph

    @property
    def target(self) -> Target:
        return self.lowered.target

    @property
    def kernel_backend(self) -> str:
        return self.lowered.backend


def default_name(model_path: str | Path) -> str:
    return c_identifier(Path(model_path).stem)


def prepare_graph(model_path: str | Path, input_shapes: dict | None = None, io_layout: str = "nhwc") -> Graph:
    """Load and optimize a model: the graph the planner and emitter see."""
    return run_pipeline(load_model(model_path, input_shapes, io_layout))


def compile_graph(graph: Graph, name: str, source: str, arena_section: str | None = None,
                  planners: tuple[str, ...] | None = None, kernels: str = DEFAULT_BACKEND,
                  room: bool = True, target: str | Target = DEFAULT_TARGET,
                  kernel_options: dict[int, dict] | None = None, debug_guards: bool = False,
                  weights_section: str | None = None, arena_group: str | None = None,
                  row_by_row: str = "auto", ram_budget: int | None = None, max_recompute: float = MAX_RECOMPUTE,
                  patches: tuple[int, int] | None = None) -> CompiledModel:
    """row_by_row: "auto" runs chains of convolutions row by row where that makes the arena smaller,
    "always" every chain, "never" none (schedule/chains.py; never in the debug build, which keeps every tensor,
    nor with kernel_options, which name the nodes of the layer-by-layer graph); ram_budget: the RAM the model
    may take, which decides between the two (schedule/chains.py fuse_rows); max_recompute: the percent of the
    model's multiply-accumulates patch grids may compute twice; patches: with "always", every chain in this grid
    of patches (rows x columns, as far as each chain allows); arena_group: the model runs on the
    arena of this group, not on one of its own (codegen/arena_group.py; group_files makes the group's files);
    kernel_options: node index -> kernel options forced on it (tests and tools: a variant the room search then
    leaves alone); debug_guards: the debug build (plan/guards.py:
    canaries checked after every layer, every tensor kept for the whole run)."""
    check_model_name(name, runtime_stems())  # before any work: the name becomes files and C symbols
    if arena_section is not None:
        check_section_name(arena_section)
    if weights_section is not None:
        check_section_name(weights_section, "--weights-section")
    lowered = lower(graph, get_target(target), kernels, kernel_options)  # every op's checks run here, before any
    # file is written
    lowered = store_states_in_place(lowered)
    rows_choice = RowsChoice(why="debug build" if debug_guards else "kernel options name the layers")
    if not debug_guards and not kernel_options:
        fused, rows_choice = fuse_rows(lowered, planners, row_by_row, ram_budget, max_recompute, patches)
        if ram_budget is not None and row_by_row == "auto":
            fused, rows_choice = lean_for_budget(lowered, fused, rows_choice, ram_budget, planners,
                                                 max_recompute=max_recompute)
        lowered = fused
    lowered, choices = use_room(lowered, planners) if room else (lowered, ())
    plan = plan_memory(lowered, planners, guards=debug_guards)
    if plan.arena_bytes > MAX_TENSOR_BYTES:  # with scratch, over what the C size fields hold
        raise CompileError(f"the arena needs {plan.arena_bytes} bytes, over the {MAX_TENSOR_BYTES} a 32-bit target "
                           "can address", f"model '{name}'")
    emitted = emit_model(name, lowered, plan, source, arena_section, weights_section, arena_group)
    report = plan_report(name, lowered, plan, source, choices, emitted.flash, rows_choice)
    if arena_group:
        report["arena_group"] = arena_group
    files = dict(emitted.files)
    files[f"{name}.plan.json"] = json.dumps(report, indent=2) + "\n"
    return CompiledModel(name, lowered, plan, files, emitted.kernels, emitted.adapters)


def runtime_stems() -> frozenset[str]:
    """The stems of every runtime header and source: names a model must not take (codegen/names.py)."""
    return frozenset(p.stem for p in CRT_DIR.rglob("*") if p.suffix in (".c", ".h"))


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


def group_files(group: str, arena_bytes: dict[str, int], arena_section: str | None = None) -> dict[str, str]:
    """GROUP_arena.h and GROUP_arena.c: the arena the models {name: arena bytes} compiled with arena_group=group
    share."""
    check_group(group, arena_bytes, runtime_stems())
    if arena_section is not None:
        check_section_name(arena_section)
    return emit_group(group, arena_bytes, ARENA_ALIGN, arena_section)


def write_output(model: CompiledModel, out_dir: str | Path, with_runtime: bool = True) -> list[Path]:
    """Write the model's files (and the runtime's) into `out_dir`: all of them, or nothing (write_models)."""
    return write_models([model], out_dir, with_runtime)


def write_models(models: list[CompiledModel], out_dir: str | Path, with_runtime: bool = True,
                 extra_files: dict[str, str] | None = None) -> list[Path]:
    """Write the models' files, `extra_files` (an arena group's) and the runtime's into `out_dir`: all of
    them, or nothing.

    Every file is written into a staging folder `.mr-*` first; only when all are written does anything move.
    - OUT does not exist: the staging folder is made beside it (in OUT's parent, the same file system) and
      renamed to OUT in one step. Missing parents of OUT are made first and removed again on failure.
    - OUT exists: the compile replaces only the files it writes and leaves every other file in OUT as it is.
      The staging folder is made inside OUT (the file system of the files it replaces, even when OUT is a
      mount point) and each changed file moves into place with a rename. The file it replaces waits in the
      staging folder until every move has succeeded, so a failed move puts the old files back. A file whose
      bytes are unchanged is not rewritten and keeps its timestamp, so incremental builds (the Zephyr CMake
      integration) do not redo work.
    Any failure (a file in the way, a read-only or full file system, a name too long) is a CompileError
    naming the path, and the staging folder is removed in every case.
    """
    if not str(out_dir):
        raise CompileError("the output folder name is empty", "-o")
    out_dir = Path(out_dir)
    contents: dict[str, bytes] = {k: v.encode() for k, v in (extra_files or {}).items()}
    for model in models:
        clash = sorted(set(model.files) & set(contents))
        if clash:
            raise CompileError(f"two models of one compile write the same file {clash[0]}", str(out_dir))
        contents.update({k: v.encode() for k, v in model.files.items()})
    if with_runtime:
        kernels = sorted({k for m in models for k in m.kernels})
        adapters = sorted({a for m in models for a in m.adapters})
        for rel, src in runtime_files(kernels, adapters).items():
            contents[rel] = src.read_bytes()
    try:
        return _write_all(out_dir, dict(sorted(contents.items())))
    except OSError as exc:
        raise CompileError(f"cannot write the output: {exc.strerror or exc}", _user_path(exc, out_dir)) from None


def _user_path(exc: OSError, out_dir: Path) -> str:
    """The path an OSError names, with a staging folder's name replaced by the output folder's."""
    name = str(exc.filename or out_dir)
    parts = Path(name).parts
    for i, part in enumerate(parts):
        if part.startswith(_STAGING_PREFIX):
            return str(Path(out_dir, *parts[i + 1:]))
    return name


_STAGING_PREFIX = ".mr-"


def _write_all(out_dir: Path, contents: dict[str, bytes]) -> list[Path]:
    exists = out_dir.is_dir()
    if out_dir.exists() and not exists:
        raise CompileError("output path exists and is not a directory", str(out_dir))
    targets = [out_dir / rel for rel in contents]
    made = [] if exists else _make_parents(out_dir)
    stage, done = None, False
    try:
        if exists:
            _check_in_the_way(out_dir, contents)
        stage = _make_staging(out_dir if exists else out_dir.parent, out_dir.name)
        changed = [rel for rel, data in contents.items() if not (exists and _same_bytes(out_dir / rel, data))]
        for rel in changed:
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            _write_file(stage / rel, contents[rel])
        if exists:
            _move_into(stage, out_dir, changed)
        else:
            os.rename(stage, out_dir)
            stage = None
        done = True
    finally:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        if not done:  # the parents made for OUT go too
            for folder in reversed(made):
                _remove_if_empty(folder)
    return targets


def _make_parents(out_dir: Path) -> list[Path]:
    """Make OUT's missing parents (not OUT itself), outermost first; a file among them is refused."""
    missing = []
    parent = out_dir.parent
    while not parent.exists() and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    if not parent.is_dir():
        raise CompileError("a parent of the output folder is a file, not a folder", str(parent))
    made = []
    try:
        for folder in reversed(missing):
            folder.mkdir()
            made.append(folder)
    except OSError:
        for folder in reversed(made):
            _remove_if_empty(folder)
        raise
    return made


def _check_in_the_way(out_dir: Path, contents: dict[str, bytes]) -> None:
    """In an existing OUT, a folder where a file goes (or a file where a folder goes) is refused up front."""
    for rel in contents:
        target = out_dir / rel
        for folder in list(Path(rel).parents)[:-1]:
            if (out_dir / folder).exists() and not (out_dir / folder).is_dir():
                raise CompileError("a file is in the way of an output folder", str(out_dir / folder))
        if target.is_dir():
            raise CompileError("a folder is in the way of an output file", str(target))


def _make_staging(parent: Path, hint: str) -> Path:
    for _ in range(100):
        stage = parent / f"{_STAGING_PREFIX}{hint[:16]}-{secrets.token_hex(4)}"
        try:
            stage.mkdir()  # mode 0o777 less the umask: becomes OUT itself when OUT is new
            return stage
        except FileExistsError:
            continue
    raise CompileError("cannot make a staging folder", str(parent))


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def _write_file(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _move_into(stage: Path, out_dir: Path, changed: list[str]) -> None:
    """Rename each staged file over its target in OUT; on a failure, undo the moves already made."""
    replaced = stage / ".replaced"
    done: list[tuple[Path, Path | None]] = []
    made: list[Path] = []
    try:
        for rel in changed:
            target = out_dir / rel
            for folder in reversed(list(Path(rel).parents)[:-1]):
                if not (out_dir / folder).is_dir():
                    (out_dir / folder).mkdir()
                    made.append(out_dir / folder)
            backup = None
            if target.exists() or target.is_symlink():
                backup = replaced / rel
                backup.parent.mkdir(parents=True, exist_ok=True)
                os.replace(target, backup)
            done.append((target, backup))
            os.replace(stage / rel, target)
    except BaseException:
        for target, backup in reversed(done):
            try:
                if backup is not None:
                    os.replace(backup, target)
                elif target.exists():
                    target.unlink()
            except OSError:
                pass
        for folder in reversed(made):
            _remove_if_empty(folder)
        raise


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass


def compile_file(model_path: str | Path, out_dir: str | Path, name: str | None = None,
                 arena_section: str | None = None, with_runtime: bool = True, input_shapes: dict | None = None,
                 io_layout: str = "nhwc", kernels: str = DEFAULT_BACKEND,
                 target: str | Target = DEFAULT_TARGET) -> CompiledModel:
    graph = prepare_graph(model_path, input_shapes, io_layout)
    model = compile_graph(graph, name or default_name(model_path), Path(model_path).name, arena_section,
                          kernels=kernels, target=target)
    write_output(model, out_dir, with_runtime)
    return model


__all__ = ["CompiledModel", "compile_file", "compile_graph", "prepare_graph", "write_output"]
