"""Benchmark: ONNX and PyTorch models compiled by Micro Relay, side by side with onnxruntime in one run.

Models: the PyTorch networks of the frontend tests (tests/support/torch_models.py), exported to float ONNX
and quantized to QDQ int8 with onnxruntime's quantize_static (per-channel weights). For each: arena bytes vs
the sum of live tensor bytes at the peak step of the same order (what an interpreter that gives every
tensor its own buffer needs), host latency (compiled C at -O2 vs onnxruntime on one thread; medians of
interleaved runs; ratio), compile time in-process (tvm already imported) and as a fresh `micro-relay
compile` process (Python start-up and the tvm import included), and flash/RAM of the model's objects for
Cortex-M4 -Os, and agreement: the compiled C and onnxruntime's optimized session against the oracle (onnxruntime
with graph optimizations off, tests/support/ort_oracle.py), in output steps for QDQ models. The optimized
session's int8 kernels depend on the CPU: its column is for information. Writes a Markdown section.

    python3 benchmarks/onnx_vs_onnxruntime.py [--out BENCHMARKS-onnx.md] [--runs 200] [--architectures 64]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from host_vs_tflm import arm_size, build_timer, time_compiled  # noqa: E402
from micro_relay.compiler import compile_graph, prepare_graph, write_output  # noqa: E402
from micro_relay.plan.buffers import tensor_lifetimes  # noqa: E402


def live_sum(graph, order) -> int:
    life = tensor_lifetimes(graph, order)
    return max(sum(graph.type_of(n).nbytes for n, (a, b) in life.items() if a <= step <= b)
               for step in range(len(order)))


def time_onnxruntime(path: Path, x: np.ndarray, runs: int) -> list[float]:
    from support.ort_oracle import optimized_session

    session = optimized_session(path, threads=1)  # onnxruntime as users run it
    feed = {"input": x}
    session.run(None, feed)
    times = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        session.run(None, feed)
        times.append((time.perf_counter_ns() - start) / 1e3)
    return times


def agreement(graph, path: Path, shape, folder: Path) -> tuple[float, float, bool]:
    """Largest difference from the oracle over 20 samples, of the compiled C and of onnxruntime's optimized
    session; in output steps for a quantized output (True), else absolute."""
    from support.c_harness import compile_and_run
    from support.ort_oracle import optimized_session, oracle_session, run_each
    from support.torch_models import samples, to_nhwc

    inputs = samples(shape, 20, seed=11)
    expected = np.stack(run_each(oracle_session(path), inputs))
    optimized = np.stack(run_each(optimized_session(path), inputs))
    ours = np.stack([s[0].reshape(expected.shape[1:]) for s in
                     compile_and_run(graph, [[to_nhwc(x)] for x in inputs], folder)])
    producer = {o: n for n in graph.nodes for o in n.outputs}.get(graph.outputs[0])
    step = 1.0
    if producer is not None and producer.op == "qnn.dequantize":
        step = graph.type_of(producer.inputs[0]).quant.scale
    return (float(np.max(np.abs(ours - expected))) / step, float(np.max(np.abs(optimized - expected))) / step,
            step != 1.0)


def measure(label: str, path: Path, shape, runs: int) -> dict:
    from support.torch_models import to_nhwc

    start = time.perf_counter()
    graph = prepare_graph(path)
    model = compile_graph(graph, "net", path.name)
    compile_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "micro_relay", "compile", str(path), "-o", str(out / "cli"), "--name", "net"],
                       check=True, capture_output=True)
        cli_s = time.perf_counter() - start
        write_output(model, out)
        exe = build_timer(out, "net")
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        ours, theirs = [], []
        for _ in range(5):
            ours += time_compiled(exe, [to_nhwc(x)], runs // 5)
            theirs += time_onnxruntime(path, x, runs // 5)
        sizes = arm_size(out, "net")
        vs_oracle, optimized_vs_oracle, in_steps = agreement(graph, path, shape, out / "agreement")
    return {"vs_oracle": vs_oracle, "optimized_vs_oracle": optimized_vs_oracle, "in_steps": in_steps, "model": label, "nodes": len(graph.nodes), "arena": model.plan.arena_bytes,
            "live_sum": live_sum(model.graph, model.plan.order), "ours_us": statistics.median(ours),
            "ort_us": statistics.median(theirs), "compile_s": compile_s, "cli_s": cli_s,
            "flash": sizes[0] if sizes else None, "ram": sizes[1] if sizes else None}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS-onnx.md"))
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--architectures", type=int, metavar="RESOLUTION", default=0,
                        help="also the mobile architectures of tests/support/mobile_architectures.py (float, seeded "
                             "random weights and batch-norm statistics) at RESOLUTIONxRESOLUTION")
    parser.add_argument("--only-architectures", action="store_true", help="skip the small networks")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    import onnxruntime
    import tvm

    from frontend.test_onnx_qdq import quantized_model
    from support import torch_models

    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import tvm"], check=True)
    tvm_import_s = time.perf_counter() - start
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name in [] if args.only_architectures else sorted(torch_models.MODELS):
            module, shape, _ = torch_models.build(name)
            float_path = torch_models.export_onnx(module, shape, folder / f"{name}.onnx")
            rows.append(measure(f"{name} float", float_path, shape, args.runs))
            qdq_path, _, _ = quantized_model(name, True, folder)
            rows.append(measure(f"{name} QDQ int8", qdq_path, shape, args.runs))
            print(rows[-2]["model"], rows[-1]["model"], file=sys.stderr)
        if args.architectures:
            from support import mobile_architectures

            shape = (1, 3, args.architectures, args.architectures)
            for name in mobile_architectures.ARCHITECTURES:
                path = torch_models.export_onnx(mobile_architectures.build(name), shape, folder / f"{name}.onnx")
                rows.append(measure(f"{name} float {args.architectures}x{args.architectures}", path, shape, args.runs))
                print(rows[-1]["model"], file=sys.stderr)
    lines = [
        "## ONNX and PyTorch models vs onnxruntime",
        "",
        f"Measured in one run on {platform.machine()} ({platform.python_implementation()} {platform.python_version()}, "
        f"apache-tvm {tvm.__version__}, onnxruntime {onnxruntime.__version__}) by `python3 benchmarks/onnx_vs_onnxruntime.py`. "
        "Models: the PyTorch networks of tests/support/torch_models.py exported to ONNX; QDQ int8 by onnxruntime's "
        "quantize_static (per-channel). Latency: compiled C (gcc -O2) vs onnxruntime on one thread, medians of "
        f"{args.runs} interleaved runs. Live sum: bytes of all tensors live at the peak step of the same order, each "
        "in its own buffer. Compile: in-process with tvm already imported / a fresh `micro-relay compile` process "
        f"(the tvm import alone takes {tvm_import_s:.1f} s). Flash/RAM: the model's objects for Cortex-M4 -Os. "
        "C vs oracle, ORT vs oracle: largest difference on 20 samples from onnxruntime with graph optimizations "
        "off (QDQ executed as written), of the compiled C and of the optimized onnxruntime session timed here "
        "(whose int8 kernels depend on the CPU); output steps for QDQ, absolute for float.",
        "",
        "| model | nodes | arena B | live sum B | arena/live | C µs | onnxruntime µs | C/ORT | compile s | CLI s | flash B "
        "| RAM B | C vs oracle | ORT vs oracle |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def diff(value, in_steps):
        return f"{value:.0f} steps" if in_steps else f"{value:.1e}"

    for r in rows:
        lines.append(f"| {r['model']} | {r['nodes']} | {r['arena']:,} | {r['live_sum']:,} | {r['arena'] / r['live_sum']:.2f} | "
                     f"{r['ours_us']:.1f} | {r['ort_us']:.1f} | {r['ours_us'] / r['ort_us']:.2f} | {r['compile_s']:.2f} | "
                     f"{r['cli_s']:.1f} | {r['flash'] if r['flash'] is not None else '-':,} | "
                     f"{r['ram'] if r['ram'] is not None else '-':,} | "
                     f"{diff(r['vs_oracle'], r['in_steps'])} | {diff(r['optimized_vs_oracle'], r['in_steps'])} |")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
