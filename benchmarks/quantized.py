"""Benchmark: float models quantized by the compiler (`--quantize int8`), float vs int8 side by side.

Models: the float MLPerf Tiny ResNet-8 (../shared/models, synthetic calibration: 32 seeded noise images in
its input range; agreement measured on 100 others) and the two scikit-learn digits networks of
tests/quantize/test_digits.py (trained here, seeded; exported to ONNX; calibrated on 200 training images,
accuracy on the 597 held-out ones). Per model: weight bytes, arena bytes, flash/RAM of the model's objects for
Cortex-M4 -Os, host latency (C at -O2, medians of interleaved runs), Cortex-M4 instructions (QEMU icount,
mps2-an386, which has an FPU for the float model), calibration time and the accuracy delta.

    python3 benchmarks/quantized.py [--models DIR] [--out BENCHMARKS-quantized.md] [--runs 50]
"""

from __future__ import annotations

import argparse
import statistics
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
from micro_relay.compiler import compile_graph, write_output  # noqa: E402
from micro_relay.quantize import QuantizeOptions, quantize_with_report  # noqa: E402
from micro_relay.reference import run  # noqa: E402


def weight_bytes(graph) -> int:
    return sum(t.type.nbytes for t in graph.tensors.values() if t.is_constant)


def host_latency(graphs, inputs, runs: int) -> list[float]:
    """Median µs per graph, runs interleaved so machine noise hits every graph alike."""
    with tempfile.TemporaryDirectory() as tmp:
        exes = []
        for index, graph in enumerate(graphs):
            out = Path(tmp) / str(index)
            write_output(compile_graph(graph, "net", "bench"), out)
            exes.append(build_timer(out, "net"))
        times = [[] for _ in graphs]
        for _ in range(5):
            for exe, series in zip(exes, times):
                series += time_compiled(exe, inputs, max(runs // 5, 1))
    return [statistics.median(t) for t in times]


def sizes(graph) -> tuple[int, int] | None:
    with tempfile.TemporaryDirectory() as tmp:
        write_output(compile_graph(graph, "net", "bench"), Path(tmp))
        return arm_size(Path(tmp), "net")


def m4_instructions(graph) -> int | None:
    try:
        from micro_relay.bench.measure import bench_graph

        result = bench_graph(graph, "net", "bench", "mps2-an386", runs=1)
    except Exception as exc:  # no QEMU / toolchain here: leave the column empty
        print(f"  M4 measurement skipped: {exc}", file=sys.stderr)
        return None
    return result["instructions"] if result["outputs_match"] else None


def row(label, graph, quantized, seconds, accuracy, inputs, runs):
    f_us, q_us = host_latency([graph, quantized], inputs, runs)
    f_size, q_size = sizes(graph), sizes(quantized)
    f_m4, q_m4 = m4_instructions(graph), m4_instructions(quantized)
    f_plan = compile_graph(graph, "net", "bench").plan.arena_bytes
    q_plan = compile_graph(quantized, "net", "bench").plan.arena_bytes
    return {"model": label, "w_f": weight_bytes(graph), "w_q": weight_bytes(quantized), "arena_f": f_plan,
            "arena_q": q_plan, "flash_f": f_size[0] if f_size else None, "flash_q": q_size[0] if q_size else None,
            "us_f": f_us, "us_q": q_us, "m4_f": f_m4, "m4_q": q_m4, "calib_s": seconds, "accuracy": accuracy}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=str(ROOT.parent / "shared" / "models"))
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS-quantized.md"))
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    rows = []

    from micro_relay.frontend import load_model
    from micro_relay.passes import run_pipeline

    resnet = Path(args.models) / "mlcommons_tiny" / "pretrainedResnet.tflite"
    if resnet.is_file():
        from quantize.test_resnet8 import images

        graph = run_pipeline(load_model(resnet))
        start = time.perf_counter()
        q, _ = quantize_with_report(graph, {graph.inputs[0]: images(0, 32)}, QuantizeOptions())
        seconds = time.perf_counter() - start
        test = images(1, 100)
        agree = np.mean([run(graph, [x])[0].argmax() == run(q, [x])[0].argmax() for x in test])
        rows.append(row("ResNet-8 (float TFLite)", graph, q, seconds, f"top-1 agrees with float on {100 * agree:.0f}%",
                        [test[0]], args.runs))
    else:
        print(f"skip ResNet-8: {resnet} absent", file=sys.stderr)

    from quantize import test_digits as digits

    import sklearn.datasets  # the digits data set ships with scikit-learn; same split as the test

    raw = sklearn.datasets.load_digits()
    order = np.random.default_rng(0).permutation(len(raw.target))
    x, y = (raw.images[order] / 16.0).astype(np.float32), raw.target[order]
    data = x[:digits.TRAIN], y[:digits.TRAIN], x[digits.TRAIN:], y[digits.TRAIN:]
    x_train, y_train, x_test, y_test = data
    with tempfile.TemporaryDirectory() as tmp:
        for kind, net in (("digits MLP (ONNX)", digits.MLP()), ("digits CNN (ONNX)", digits.CNN())):
            trained = digits.train(net, x_train, y_train)
            graph = digits.float_model(trained, Path(tmp))
            start = time.perf_counter()
            q, _ = quantize_with_report(graph, {graph.inputs[0]: x_train[:digits.CALIBRATION].reshape(-1, 1, 8, 8, 1)},
                                        QuantizeOptions())
            seconds = time.perf_counter() - start
            tests = [x.reshape(1, 8, 8, 1) for x in x_test]
            f_acc = np.mean([run(graph, [x])[0].argmax() == t for x, t in zip(tests, y_test)])
            q_acc = np.mean([run(q, [x])[0].argmax() == t for x, t in zip(tests, y_test)])
            rows.append(row(kind, graph, q, seconds, f"top-1 {100 * f_acc:.2f}% float, {100 * q_acc:.2f}% int8 "
                            f"({100 * (q_acc - f_acc):+.2f} points)", [tests[0]], args.runs))

    def fmt(v, suffix=""):
        return "-" if v is None else f"{v:,}{suffix}"

    lines = [
        "## Post-training quantization: float vs int8 (`--quantize int8`)",
        "",
        "Measured in one run by `python3 benchmarks/quantized.py`. Weights: constant bytes in the generated C. "
        "Flash: the model's objects for Cortex-M4 -Os. Host: compiled C at -O2, medians of interleaved runs. "
        "M4: instructions per inference on QEMU mps2-an386 (-icount). Calibration: the whole quantization step "
        "(reference-interpreter runs over the calibration set, range choice, rewrite, report).",
        "",
        "| model | weights B float → int8 | arena B float → int8 | flash B float → int8 | host µs float → int8 | "
        "M4 instr float → int8 | calibration s | accuracy |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['model']} | {fmt(r['w_f'])} → {fmt(r['w_q'])} ({100 * r['w_q'] / r['w_f']:.1f}%) | "
            f"{fmt(r['arena_f'])} → {fmt(r['arena_q'])} | {fmt(r['flash_f'])} → {fmt(r['flash_q'])} | "
            f"{r['us_f']:.1f} → {r['us_q']:.1f} | {fmt(r['m4_f'])} → {fmt(r['m4_q'])} | {r['calib_s']:.2f} | "
            f"{r['accuracy']} |")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
