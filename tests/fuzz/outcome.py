"""Compile one model in process and say how it ended: a clean error, a compile, or a bug.

A clean error is a CompileError whose text is one printable line with a location; anything else escaping
(another exception type, a multi-line message, the reader's safety net catching an exception from our own
code) is a bug, named by its type and the source line that raised it so that a run groups its bugs.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path

from micro_relay.compiler import compile_graph
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.frontend import UnexpectedModelError
from micro_relay.passes import run_pipeline


@dataclass(frozen=True)
class Outcome:
    kind: str  # "error", "compiled" or "bug"
    detail: str  # the error line, or the bug's type and place
    files: dict | None = None  # the compiled model's files (kind "compiled")
    model: object = None  # the CompiledModel (kind "compiled")


def _place(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "micro_relay" in f.filename] or frames
    last = ours[-1] if ours else None
    return f"{type(exc).__name__} at {Path(last.filename).name}:{last.lineno}" if last else type(exc).__name__


def compile_bytes(data: bytes, where: str = "fuzz.tflite") -> Outcome:
    """Read, optimize, plan and emit `data` (nothing is written to disk)."""
    try:
        graph = run_pipeline(read_tflite(data, where))
        model = compile_graph(graph, "fuzz", where)
    except UnexpectedModelError as exc:
        return Outcome("bug", f"safety net: {exc.cause}")
    except CompileError as exc:
        line = f"error: {exc}"
        if not line.isprintable() or not exc.where:
            return Outcome("bug", f"malformed error line {line!r}")
        return Outcome("error", line)
    except RecursionError as exc:
        return Outcome("bug", _place(exc))
    except Exception as exc:  # noqa: BLE001 - classifying every escape is the point
        return Outcome("bug", _place(exc))
    return Outcome("compiled", f"{len(graph.nodes)} nodes, arena {model.plan.arena_bytes} B", model.files, model)


def c_build_problem(outcome: Outcome, work_dir: Path, compiler: str = "gcc") -> str | None:
    """Compile a compiled outcome's model .c with -Werror (object only, no link): None when it builds, else
    the compiler's first lines. The runtime headers come from the repository, as compile_file copies them."""
    import subprocess

    from micro_relay.compiler import runtime_files
    from support.c_harness import STRICT_FLAGS

    work_dir.mkdir(parents=True, exist_ok=True)
    for name, text in outcome.files.items():
        (work_dir / name).write_text(text)
    for rel, src in runtime_files(()).items():
        (work_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (work_dir / rel).write_bytes(src.read_bytes())
    result = subprocess.run([compiler, *STRICT_FLAGS, "-I", str(work_dir), "-c", str(work_dir / "fuzz.c"),
                             "-o", str(work_dir / "fuzz.o")], capture_output=True, text=True)
    return None if result.returncode == 0 else result.stderr.strip()[:400]


SANITIZE_FLAGS = ("-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all")


def sanitized_run_problem(outcome: Outcome, work_dir: Path, samples: int = 3, compiler: str = "gcc") -> str | None:
    """Build a compiled outcome with its runtime under ASan and UBSan and run it on random inputs (integers
    over the whole type, floats standard normal): None when it runs clean, else the first lines of the report.
    Only the absence of undefined behaviour and memory errors is checked here, not the outputs."""
    import numpy as np

    from micro_relay.compiler import write_output
    from support.c_harness import build_host_program, run_host_program
    from support.model_check import random_inputs

    import resource

    model = outcome.model
    write_output(model, work_dir)
    soft = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (soft[1], soft[1]))  # children inherit it: ASan needs room
    try:
        exe = build_host_program(work_dir, model.name, cc=compiler, extra_flags=SANITIZE_FLAGS)
        graph = model.graph
        rng = np.random.default_rng(0)
        inputs = [[np.ascontiguousarray(x, dtype=graph.type_of(n).dtype.numpy) for x, n in
                   zip(random_inputs(graph, rng), graph.inputs)] for _ in range(samples)]
        types = [(graph.type_of(n).dtype.numpy, graph.type_of(n).shape) for n in graph.outputs]
        run_host_program(exe, inputs, types)
    except AssertionError as exc:
        return str(exc)[:600]
    finally:
        resource.setrlimit(resource.RLIMIT_AS, soft)
    return None
