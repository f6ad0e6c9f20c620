"""Build the bare-metal runner with arm-none-eabi-gcc: the model's C (as the compiler wrote it, hosted C99)
plus the runner's own freestanding sources, linked with -nostdlib against libgcc (compiler helpers) and,
when a float kernel calls exp/tanh and friends, newlib's libm. The runner supplies memcpy/memset/memmove/
memcmp and the errno location itself, so no C library is linked.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..errors import CompileError
from .machines import Machine

RUNNER_DIR = Path(__file__).resolve().parent / "runner"
LD_DIR = RUNNER_DIR / "ld"
RUNNER_SOURCES = ("startup.c", "semihost.c", "timer.c", "libc_min.c")

# What the issue asks of every build: size-optimized, each function and object in its own section so the
# linker drops what nothing references. Another level (OPT_LEVELS) checks that a debug build computes the same.
OPT_LEVELS = ("0", "g", "1", "2", "3", "s")
DEFAULT_OPT_LEVEL = "s"
COMMON_FLAGS = ("-mthumb", "-std=c99", "-ffunction-sections", "-fdata-sections")
RUNNER_FLAGS = ("-ffreestanding", "-Wall", "-Wextra")
LINK_FLAGS = ("-nostdlib", "-Wl,--gc-sections")
LIBRARIES = ("-Wl,--start-group", "-lm", "-lgcc", "-Wl,--end-group")


def find_tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise CompileError(f"{name} not found on PATH (install {package})", "bench")
    return path


def gcc_version(gcc: str) -> str:
    result = subprocess.run([gcc, "-dumpversion"], capture_output=True, text=True)
    return result.stdout.strip()


_TOOL_PREFIX = re.compile(r"^\S*/(ld|as|cc1): ")
_TELLING = ("error", "will not fit", "overflowed", "undefined reference", "mr-bench:")


def _run(command: list[str], what: str, cwd: Path | None = None) -> None:
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    if result.returncode != 0:
        said = [_TOOL_PREFIX.sub("", line).strip() for line in (result.stderr or result.stdout).splitlines()
                if line.strip() and not line.startswith("collect2")]
        telling = [line for line in said if any(word in line.lower() for word in _TELLING)]
        line = (telling or said or [f"exit status {result.returncode}"])[0]
        raise CompileError(f"{what} failed: {line}", Path(command[-1]).name)


def opt_flag(level: str) -> str:
    """-O<level> for one of OPT_LEVELS."""
    if level not in OPT_LEVELS:
        raise CompileError(f"unknown optimization level '{level}' (choose from {', '.join(OPT_LEVELS)})",
                           "--opt-level")
    return f"-O{level}"


def _compile_all(gcc: str, machine: Machine, jobs: list[tuple[Path, Path, tuple[str, ...]]],
                 opt_level: str = DEFAULT_OPT_LEVEL) -> None:
    """Compile (source, object, extra flags) jobs in parallel."""
    opt = opt_flag(opt_level)

    def one(job):
        source, obj, extra = job
        _run([gcc, *machine.cflags, opt, *COMMON_FLAGS, *extra, "-c", "-o", str(obj), str(source)],
             f"arm-none-eabi-gcc on {source.name}")

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        list(pool.map(one, jobs))


def _link(gcc: str, machine: Machine, objects: list[Path], elf: Path, archives: tuple[Path, ...] = ()) -> Path:
    command = [gcc, *machine.cflags, "-mthumb", *LINK_FLAGS, f"-T{LD_DIR / (machine.name + '.ld')}",
               f"-L{LD_DIR}", f"-Wl,-Map={elf.with_suffix('.map')}",
               *map(str, objects), *map(str, archives), *LIBRARIES, "-o", str(elf)]
    _run(command, "linking the runner")
    return elf


def build_runner(gcc: str, machine: Machine, model_dir: Path, build_dir: Path, main: str,
                 model_sources: list[Path], defines: tuple[str, ...] = (), model_flags: tuple[str, ...] = (),
                 archives: tuple[Path, ...] = (), opt_level: str = DEFAULT_OPT_LEVEL) -> Path:
    """Compile the runner sources (with `main`) and the given model sources (with model_flags, e.g. a
    library's include folder) at -O<opt_level>; link build_dir/runner.elf with the archives (e.g. CMSIS-NN's)."""
    obj_dir = build_dir / "obj"
    obj_dir.mkdir(parents=True, exist_ok=True)
    include = (f"-I{RUNNER_DIR}", f"-I{model_dir}")
    jobs = [(RUNNER_DIR / s, obj_dir / f"mrb_{Path(s).stem}.o", (*RUNNER_FLAGS, *include, *defines))
            for s in (*RUNNER_SOURCES, main)]
    jobs += [(s, obj_dir / f"{s.stem}.o", (f"-I{model_dir}", *model_flags)) for s in model_sources]
    _compile_all(gcc, machine, jobs, opt_level)
    return _link(gcc, machine, [obj for _, obj, _ in jobs], build_dir / "runner.elf", archives)


def compile_jobs(gcc: str, machine: Machine, opt_level: str = DEFAULT_OPT_LEVEL):
    """compile_all(jobs) for this compiler and board: (source, object, extra flags) jobs in parallel."""
    return lambda jobs: _compile_all(gcc, machine, jobs, opt_level)


def arena_flag(name: str) -> str:
    """Compile flag for the model's sources: its arena is the runner's (NAME_EXTERNAL_ARENA), which paints it."""
    return f"-D{name.upper()}_EXTERNAL_ARENA={name}_arena"


def write_model_shim(model_dir: Path, name: str) -> None:
    """mrb_model.h: the runner's names for the generated NAME_* API, and for the arena it defines (arena_flag;
    named NAME_arena, so the size report still counts it as the model's)."""
    macro = name.upper()
    lines = [f"/* Generated by micro-relay bench: the runner's names for model {name}. */",
             f'#include "{name}.h"',
             f"#define MRB_NUM_INPUTS {macro}_NUM_INPUTS",
             f"#define MRB_NUM_OUTPUTS {macro}_NUM_OUTPUTS",
             f"#define MRB_ARENA_SIZE {macro}_ARENA_SIZE",
             f"#define mrb_arena {name}_arena"]
    lines += [f"#define mrb_{fn} {name}_{fn}" for fn in ("invoke", "input", "output", "input_size", "output_size")]
    (model_dir / "mrb_model.h").write_text("\n".join(lines) + "\n")


_NODE_COMMENT = re.compile(r"^(\s*)/\* (\d+): ")


def instrument_invoke(source: str, name: str) -> str:
    """A copy of NAME.c whose NAME_invoke_with (which NAME_invoke calls; with state, NAME_invoke_with_state, which
    it calls) marks mrb_profile_mark(node) before each layer and -1 at its end.

    Relies on the emitter's `/* k: op ... */` comment before each node's statements; without them the copy
    has only the end mark and the profile comes back empty.
    """
    lines = source.splitlines()
    heads = (f"int {name}_invoke_with_state(void *arena, void *state)", f"int {name}_invoke_with(void *arena)")
    start = next((i for head in heads for i, line in enumerate(lines) if line.startswith(head)), None)
    if start is None:
        raise CompileError(f"cannot find {name}_invoke_with in the generated C for profiling", f"{name}.c")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("}"))
    body = []
    for line in lines[start:end]:
        match = _NODE_COMMENT.match(line)
        if match:
            body.append(f"{match.group(1)}mrb_profile_mark({match.group(2)});")
        if line.strip() == "return 0;":
            body.append(line.replace("return 0;", "mrb_profile_mark(-1);"))
        body.append(line)
    return "\n".join(["void mrb_profile_mark(int node);", *lines[:start], *body, *lines[end:]]) + "\n"
