"""Benchmark: the cycle estimate on the shared int8 models, next to the MLPerf Tiny records.

`micro-relay bench` on mps2-an386 (Cortex-M4F, the TRM table) and mps2-an500 (Cortex-M7, the labelled
dual-issue approximation): instructions, estimated cycles, where the cycles go by instruction class, and for
the MLPerf Tiny models the best published Cortex-M4 latency in cycles (120 MHz) with our estimate's ratio to
it. The estimate is zero-wait-state (bench/cycles/timing.py says what it leaves out); the records are silicon
with flash wait states, so a ratio below 1 is required, not sufficient, to beat them. Needs QEMU's plugin
header (`make qemu-plugin-header`). Writes a Markdown section for BENCHMARKS.md; takes about two minutes.

    python3 benchmarks/cycles.py [--models DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from micro_relay.bench import bench_model
from micro_relay.bench.cycles.timing import CORTEX_M4

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from cortex_m import MLPERF_CLOCK_HZ, MLPERF_TINY_M4  # noqa: E402  (the records, in one place)

MODELS = ("mlcommons_tiny/kws_ref_model.tflite", "mlcommons_tiny/ad01_int8.tflite",
          "mlcommons_tiny/pretrainedResnet_quant.tflite", "tflite_micro/person_detect.tflite",
          "tflite_micro/micro_speech_quantized.tflite")
GROUPS = {"loads and stores": ("load", "load_pipelined", "store", "load_store_double", "multiple", "registers",
                               "fp_load_store", "fp_multiple"),
          "multiplies": ("mul", "fp_mac"), "branches": ("branch", "branch_taken")}


def shares(classes: dict[str, int]) -> str:
    total = CORTEX_M4.cycles(classes)
    parts = []
    for group, names in GROUPS.items():
        part = CORTEX_M4.cycles({n: classes.get(n, 0) for n in names})
        parts.append(f"{group} {100 * part / total:.0f}%")
    return ", ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=str(ROOT.parent / "shared" / "models"))
    parser.add_argument("--out", default="BENCHMARKS-cycles.md")
    args = parser.parse_args()
    rows = []
    for relative in MODELS:
        path = Path(args.models) / relative
        m4, m7 = bench_model(path, "mps2-an386"), bench_model(path, "mps2-an500")
        if m4["cycles_estimate"] is None:
            print(f"error: no cycle estimate: {m4['cycle_model']}", file=sys.stderr)
            return 2
        print(f"{path.stem}: {m4['instructions']:,} instructions, {m4['cycles_estimate']:,} cycles (M4), "
              f"{m7['cycles_estimate']:,} (M7 approx.)", file=sys.stderr)
        rows.append((path.stem, m4, m7))
    lines = ["## Cycle estimate (QEMU plugin, Cortex-M4 TRM timings)", "",
             "Produced by `python3 benchmarks/cycles.py`. A QEMU plugin (scripts/micro_relay/bench/cycles/"
             "insn_classes.c)",
             "counts each invoke's executed instructions by timing class; the Cortex-M4 Technical Reference Manual's",
             "instruction timings turn them into cycles at zero wait states (loads 2, or 1 after a load or store;",
             "stores 1; LDRD 3; LDM/STM/PUSH/POP 1+N; MACs 1; a taken branch 1+P with P = 2; divide 7 of 2..12;",
             "VMLA 3, VDIV 14). tests/bench/test_cycles.py checks the classes and the table on ten instruction",
             "sequences whose cycles the TRM fixes, and that the plugin's instruction total is the bench's.",
             "Left out: flash wait states and prefetch, load-use stalls, bus contention; so this is a lower estimate",
             "for a part running from flash at 120 MHz. The Cortex-M7 column assumes every pair dual-issues and no",
             "stall: an approximation, labelled so, not the manual. MLPerf Tiny: best published Cortex-M4 latency",
             "at 120 MHz, in cycles. TFLite Micro + CMSIS-NN is not measured this way here (its figures in the",
             "table above are instruction counts from the shared models' README).", "",
             "| model | MACs | instructions M4 | cycles M4 (est.) | cycles / instruction | cycles / MAC "
             "| cycles M7 (approx.) | MLPerf Tiny best M4 (cycles) | est. / record | M4 cycles go to |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, m4, m7 in rows:
        record = MLPERF_TINY_M4.get(name)
        record_cycles = round(record[1] * MLPERF_CLOCK_HZ / 1000) if record else None
        ratio = f"{m4['cycles_estimate'] / record_cycles:.2f}" if record_cycles else "–"
        per_mac = f"{m4['cycles_estimate'] / m4['macs']:.2f}" if m4["macs"] else "–"
        lines.append(f"| {name} | {m4['macs']:,} | {m4['instructions']:,} | {m4['cycles_estimate']:,} | "
                     f"{m4['cycles_estimate'] / m4['instructions']:.2f} | {per_mac} | {m7['cycles_estimate']:,} | "
                     f"{f'{record_cycles:,}' if record_cycles else '–'} | {ratio} | "
                     f"{shares(m4['instruction_classes'])} |")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
