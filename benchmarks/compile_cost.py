"""Benchmark: the cost of compiling, wall time and peak memory of `micro-relay compile` as models grow.

Models (written here with the project's own TFLite writer, seeded, nothing downloaded):
  conv chain N     int8 [1, 4, 4, 8] activations; N operators cycling CONV_2D 1x1, DEPTHWISE_CONV_2D 3x3,
                   ADD (a residual from two operators back) and RELU, the mix of a small CNN;
  elementwise N    int8 [1, 64] activations; N operators cycling ADD and MUL by a constant vector, TANH and
                   LOGISTIC;
  dense ~50 MB     int8 [1, 4096] -> three FULLY_CONNECTED 4096x4096 layers (int8 weights, int32 biases):
                   50.4 MB of weights.
Each model is compiled in a fresh process (`python -m micro_relay compile MODEL -o OUT`); wall time is measured
around the process and peak memory is that child's maximum resident set size (os.wait4's resource usage).

    python3 benchmarks/compile_cost.py [--out BENCHMARKS-compile-cost.md] [--sizes 300,1000,3000] [--no-big]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from micro_relay.frontend.tflite.writer import TFLiteBuilder  # noqa: E402

CHAIN_SHAPE = (1, 4, 4, 8)
ELEMENTWISE_SHAPE = (1, 64)
DENSE_WIDTH = 4096
DENSE_LAYERS = 3


def _act(b: TFLiteBuilder, name: str, shape, scale: float = 0.05, zero_point: int = -2) -> str:
    return b.tensor(name, shape, "int8", scale=scale, zero_point=zero_point)


def conv_chain(n: int, seed: int = 0) -> bytes:
    """N operators: 1x1 conv, 3x3 depthwise, residual add, relu, repeated; every tensor int8 [1, 4, 4, 8]."""
    rng = np.random.default_rng(seed)
    b = TFLiteBuilder()
    channels = CHAIN_SHAPE[-1]
    x = _act(b, "input", CHAIN_SHAPE)
    history = [x, x]
    for i in range(n):
        kind = i % 4
        out = _act(b, f"op{i}/out", CHAIN_SHAPE)
        if kind == 0:
            w = b.tensor(f"op{i}/weights", (channels, 1, 1, channels), "int8",
                         data=rng.integers(-127, 128, (channels, 1, 1, channels)),
                         scale=list(rng.uniform(0.002, 0.02, channels)), zero_point=0, axis=0)
            bias = b.tensor(f"op{i}/bias", (channels,), "int32", data=rng.integers(-500, 500, channels),
                            scale=[0.0001] * channels, zero_point=0, axis=0)
            b.op("CONV_2D", [history[-1], w, bias], [out], padding="SAME")
        elif kind == 1:
            w = b.tensor(f"op{i}/weights", (1, 3, 3, channels), "int8",
                         data=rng.integers(-127, 128, (1, 3, 3, channels)),
                         scale=list(rng.uniform(0.002, 0.02, channels)), zero_point=0, axis=3)
            bias = b.tensor(f"op{i}/bias", (channels,), "int32", data=rng.integers(-500, 500, channels),
                            scale=[0.0001] * channels, zero_point=0, axis=0)
            b.op("DEPTHWISE_CONV_2D", [history[-1], w, bias], [out], padding="SAME", depth_multiplier=1)
        elif kind == 2:
            b.op("ADD", [history[-1], history[-3] if len(history) > 2 else history[-2]], [out])
        else:
            b.op("RELU", [history[-1]], [out])
        history.append(out)
    return b.inputs(x).outputs(history[-1]).build()


def elementwise_chain(n: int, seed: int = 0) -> bytes:
    """N operators: add a constant, tanh, multiply by a constant, logistic, repeated; int8 [1, 64]."""
    rng = np.random.default_rng(seed)
    b = TFLiteBuilder()
    x = _act(b, "input", ELEMENTWISE_SHAPE)
    current = x
    for i in range(n):
        kind = i % 4
        if kind == 1:  # TFLite's fixed output scales for int8 tanh and logistic
            out = _act(b, f"op{i}/out", ELEMENTWISE_SHAPE, 1.0 / 128, 0)
        elif kind == 3:
            out = _act(b, f"op{i}/out", ELEMENTWISE_SHAPE, 1.0 / 256, -128)
        else:
            out = _act(b, f"op{i}/out", ELEMENTWISE_SHAPE)
        if kind in (0, 2):
            c = b.tensor(f"op{i}/constant", ELEMENTWISE_SHAPE[-1:], "int8",
                         data=rng.integers(-128, 128, ELEMENTWISE_SHAPE[-1]), scale=0.03, zero_point=1)
            b.op("ADD" if kind == 0 else "MUL", [current, c], [out])
        else:
            b.op("TANH" if kind == 1 else "LOGISTIC", [current], [out])
        current = out
    return b.inputs(x).outputs(current).build()


def big_dense(seed: int = 0) -> bytes:
    """Three int8 4096x4096 fully connected layers: 50.4 MB of weights."""
    rng = np.random.default_rng(seed)
    b = TFLiteBuilder()
    x = _act(b, "input", (1, DENSE_WIDTH))
    current = x
    for i in range(DENSE_LAYERS):
        w = b.tensor(f"fc{i}/weights", (DENSE_WIDTH, DENSE_WIDTH), "int8",
                     data=rng.integers(-127, 128, (DENSE_WIDTH, DENSE_WIDTH), dtype=np.int8), scale=0.0005,
                     zero_point=0)
        bias = b.tensor(f"fc{i}/bias", (DENSE_WIDTH,), "int32", data=rng.integers(-2000, 2000, DENSE_WIDTH),
                        scale=0.05 * 0.0005, zero_point=0)
        out = _act(b, f"fc{i}/out", (1, DENSE_WIDTH))
        b.op("FULLY_CONNECTED", [current, w, bias], [out], activation="RELU")
        current = out
    return b.inputs(x).outputs(current).build()


def compile_cost(model: Path, out: Path) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds, peak RSS in bytes, bytes of generated C) of one compile in a fresh process.

    os.wait4 gives that one child's resource usage (RUSAGE_CHILDREN would keep the largest of all children)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "scripts"),
                                                                    os.environ.get("PYTHONPATH")])))
    with tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "micro_relay", "compile", str(model), "-o", str(out),
                                  "--name", "net"], env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            stderr.seek(0)
            raise RuntimeError(f"compile of {model.name} failed: {stderr.read().decode().strip()}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, (out / "net.c").stat().st_size


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS-compile-cost.md"))
    parser.add_argument("--sizes", default="300,1000,3000", help="chain lengths, comma-separated")
    parser.add_argument("--no-big", action="store_true", help="skip the ~50 MB model")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    models = [(f"conv chain {n}", n, lambda n=n: conv_chain(n)) for n in sizes]
    models += [(f"elementwise chain {n}", n, lambda n=n: elementwise_chain(n)) for n in sizes]
    if not args.no_big:
        models.append(("dense ~50 MB", DENSE_LAYERS, big_dense))
    rows = []
    load = os.getloadavg()[0]  # wall time includes waiting for a core; CPU time does not
    with tempfile.TemporaryDirectory() as tmp:
        for label, ops, build in models:
            path = Path(tmp) / (label.replace(" ", "_").replace("~", "") + ".tflite")
            path.write_bytes(build())
            seconds, cpu, peak, c_bytes = compile_cost(path, Path(tmp) / "out")
            rows.append((label, ops, path.stat().st_size, seconds, cpu, peak, c_bytes))
            print(f"{label}: {seconds:.2f} s ({cpu:.2f} s CPU), {peak / 2**20:.0f} MiB peak RSS", file=sys.stderr)
            path.unlink()
    lines = [
        "## Cost of compiling",
        "",
        f"Measured by `python3 benchmarks/compile_cost.py` on {platform.machine()} (CPython "
        f"{platform.python_version()}, {os.cpu_count()} cores, load average {load:.1f} at the start: wall time "
        "includes waiting for a core, CPU time does not): each model written by the project's TFLite writer (seeded) and compiled "
        "by `python -m micro_relay compile` in a fresh process; wall time of the whole process (interpreter "
        "start and imports included) and its CPU time (user + system), peak RSS of that process (its own getrusage, via os.wait4). Conv chain: int8 [1,4,4,8], "
        "1x1 conv, 3x3 depthwise, residual add, relu repeated. Elementwise chain: int8 [1,64], add and mul by "
        "a constant, tanh, logistic repeated. Dense: three int8 4096x4096 fully connected layers.",
        "",
        "| model | operators | model file (B) | compile (s) | CPU (s) | peak RSS (MiB) | generated C (B) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, ops, file_bytes, seconds, cpu, peak, c_bytes in rows:
        lines.append(f"| {label} | {ops:,} | {file_bytes:,} | {seconds:.2f} | {cpu:.2f} | {peak / 2**20:,.0f} | "
                     f"{c_bytes:,} |")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
