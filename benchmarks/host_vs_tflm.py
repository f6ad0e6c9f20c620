"""Benchmark: every shared model compiled by Micro Relay, side by side with TFLite Micro in the same run.

For each model: arena bytes (ours vs TFLite Micro's arena total and its activation "head"), host latency
(compiled C vs the TFLite Micro interpreter on the same input; median of interleaved runs; ratio of
medians), flash (text+rodata) and RAM (data+bss) of the model's own objects built with arm-none-eabi-gcc
-Os for Cortex-M4, and compile time. Writes a Markdown table (BENCHMARKS.md by default).

    python3 benchmarks/host_vs_tflm.py [--models DIR] [--out BENCHMARKS.md] [--runs 50] [--only lstm]
"""

from __future__ import annotations

import argparse
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from micro_relay.compiler import compile_graph, prepare_graph, write_output  # noqa: E402
from micro_relay.ir.registry import get_op  # noqa: E402
from support.model_check import random_inputs  # noqa: E402
from support.shared_models import CONFORMANCE_MODELS, STATEFUL_MODELS  # noqa: E402
from support.tflm_oracle import tflm_arena  # noqa: E402


TIMING_MAIN = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "{name}.h"

static unsigned char saved[{macro}_NUM_INPUTS][1 << 20];

static long long now_ns(void)
{{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}}

int main(int argc, char **argv)
{{
    int i, run, runs = argc > 1 ? atoi(argv[1]) : 50;
    for (i = 0; i < {macro}_NUM_INPUTS; ++i) {{
        if (fread(saved[i], 1, {name}_input_size(i), stdin) != {name}_input_size(i)) return 2;
    }}
    for (run = 0; run < runs; ++run) {{
        long long start;
        for (i = 0; i < {macro}_NUM_INPUTS; ++i) memcpy({name}_input(i), saved[i], {name}_input_size(i));
        start = now_ns();
        if ({name}_invoke() != 0) return 3;
        printf("%lld\n", now_ns() - start);
    }}
    return 0;
}}
"""


def build_timer(out: Path, name: str) -> Path:
    (out / "bench_main.c").write_text(TIMING_MAIN.format(name=name, macro=name.upper()))
    exe = out / "bench"
    subprocess.run(["gcc", "-std=c99", "-O2", "-I", str(out), *map(str, sorted(out.glob("*.c"))), "-o", str(exe), "-lm"],
                   check=True, capture_output=True)
    return exe


def time_compiled(exe: Path, inputs, runs: int) -> list[float]:
    stdin = b"".join(np.ascontiguousarray(x).tobytes() for x in inputs)
    result = subprocess.run([str(exe), str(runs)], input=stdin, capture_output=True, check=True)
    return [int(v) / 1e3 for v in result.stdout.split()]


def time_tflm(model_bytes: bytes, inputs, runs: int) -> list[float]:
    from tflite_micro import runtime

    interpreter = runtime.Interpreter.from_bytes(model_bytes, arena_size=1 << 20)
    times = []
    for _ in range(runs):
        for index, value in enumerate(inputs):
            interpreter.set_input(value, index)
        start = time.perf_counter_ns()
        interpreter.invoke()
        times.append((time.perf_counter_ns() - start) / 1e3)
    return times


def arm_size(out: Path, name: str) -> tuple[int, int] | None:
    """(flash = text + rodata, ram = data + bss) of the model's objects for Cortex-M4 -Os."""
    gcc, size = shutil.which("arm-none-eabi-gcc"), shutil.which("arm-none-eabi-size")
    if not gcc or not size:
        return None
    objects = []
    for source in sorted(out.glob("*.c")):
        if source.name.startswith("bench_"):
            continue
        obj = out / f"{source.stem}.arm.o"
        subprocess.run([gcc, "-mcpu=cortex-m4", "-mthumb", "-Os", "-std=c99", "-ffunction-sections", "-fdata-sections",
                        "-I", str(out), "-c", str(source), "-o", str(obj)], check=True, capture_output=True)
        objects.append(str(obj))
    text = subprocess.run([size, "-t", *objects], capture_output=True, text=True, check=True).stdout
    total = text.strip().splitlines()[-1].split()
    code_and_rodata, data, bss = int(total[0]), int(total[1]), int(total[2])
    return code_and_rodata + data, data + bss


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=str(ROOT.parent / "shared" / "models"))
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--only", default="", help="measure the models whose path contains this text")
    args = parser.parse_args(argv)
    models_dir = Path(args.models)
    rows = []
    for relative in (*CONFORMANCE_MODELS, *STATEFUL_MODELS):
        if args.only not in relative:
            continue
        path = models_dir / relative
        if not path.is_file():
            print(f"skip {relative}: absent", file=sys.stderr)
            continue
        data = path.read_bytes()
        start = time.perf_counter()
        graph = prepare_graph(path)
        name = path.stem.replace("-", "_")
        model = compile_graph(graph, name, path.name)
        compile_s = time.perf_counter() - start
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            write_output(model, out)
            exe = build_timer(out, name)
            inputs = random_inputs(graph, np.random.default_rng(0))
            ours, theirs = [], []
            for _ in range(5):  # interleave blocks so machine noise hits both sides alike
                ours += time_compiled(exe, inputs, args.runs // 5 or 1)
                theirs += time_tflm(data, inputs, args.runs // 5 or 1)
            sizes = arm_size(out, name)
        arena = tflm_arena(data)
        row = {
            "model": path.stem, "arena": model.plan.arena_bytes, "lower_bound": model.plan.lower_bound,
            "state": model.plan.state.state_bytes if model.plan.state else 0,
            "tflm_total": arena.get("total", 0), "tflm_head": arena.get("head", 0),
            "ours_us": statistics.median(ours), "tflm_us": statistics.median(theirs),
            "flash": sizes[0] if sizes else None, "ram": sizes[1] if sizes else None, "compile_s": compile_s,
            "macs": sum(get_op(n.op).macs(graph, n) for n in graph.nodes),
        }
        rows.append(row)
        print(f"{row['model']}: arena {row['arena']} + state {row['state']} vs TFLM {row['tflm_total']} "
              f"({(row['arena'] + row['state']) / row['tflm_total']:.2f}x), "
              f"host {row['ours_us']:.1f} us vs {row['tflm_us']:.1f} us ({row['ours_us'] / row['tflm_us']:.2f}x), "
              f"compile {compile_s:.2f} s", file=sys.stderr)
    Path(args.out).write_text(render(rows, args.runs))
    return 0


def render(rows, runs: int) -> str:
    lines = [
        "# Benchmarks",
        "",
        "Produced by `make bench` (`python3 benchmarks/host_vs_tflm.py`): each shared reference model compiled by",
        "Micro Relay for the default target, `generic` (portable kernels, no DSP scratch), and run side by side",
        "with the TFLite Micro interpreter (PyPI `tflite-micro`) in the same run.",
        f"Host: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, gcc -O2;",
        f"latency is the median of {runs} interleaved invokes on the same seeded input (TFLite Micro timed around",
        "`invoke()` from Python, so a few microseconds of call overhead are on its side). Flash and RAM are the",
        "model's own objects (generated C + runtime kernels) built with arm-none-eabi-gcc -mcpu=cortex-m4 -Os:",
        "flash = text + rodata + data, RAM = data + bss (the arena included). A model that keeps state between",
        "invokes (the LSTM) has it apart from the arena (`+ N state`): the arena ratio counts both against TFLite",
        "Micro's total, which holds its variables; both sides carry their state from one timed invoke to the next.",
        "",
        "| model | MACs | arena (B) | lower bound (B) | TFLM arena total / head (B) | arena ratio | host µs (ours) | host µs (TFLM) | latency ratio | flash (B) | RAM (B) | compile (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        arena = f"{r['arena']:,} + {r['state']:,} state" if r["state"] else f"{r['arena']:,}"
        lines.append(
            f"| {r['model']} | {r['macs']:,} | {arena} | "
            f"{r['lower_bound']:,} | {r['tflm_total']:,} / {r['tflm_head']:,} | "
            f"{(r['arena'] + r['state']) / r['tflm_total']:.2f} | {r['ours_us']:.1f} | {r['tflm_us']:.1f} | {r['ours_us'] / r['tflm_us']:.2f} | "
            f"{r['flash'] if r['flash'] is not None else '–':,} | {r['ram'] if r['ram'] is not None else '–':,} | {r['compile_s']:.2f} |"
        )
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
