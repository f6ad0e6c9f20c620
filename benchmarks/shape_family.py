"""Benchmark: instructions and estimated cycles per MAC of the shape family on emulated Cortex-M4.

Kernels are tuned on friendly shapes; this runs every model of micro_relay.examples.shape_family (MobileNetV1/V2
blocks, DS-CNN, odd channel counts, odd maps, stride 2, dilation, 1-D convolutions over time, FC-only stacks) on
mps2-an386 under QEMU (-icount: exact instruction counts) with `micro_relay.bench.bench_model`, so a shape that
falls off a kernel's fast path shows up as a high instructions/MAC. The device's outputs are checked against
TFLite Micro's interpreter on the same seeded input. The whole model is measured (pooling, ADD and requantizing
included). Layers run layer by layer (--row-by-row never) unless told otherwise: this table measures the kernels,
and row by row is a trade of instructions for arena that BENCHMARKS.md measures on its own. Writes a Markdown
section (BENCHMARKS-family.md by default).

    python3 benchmarks/shape_family.py [--only SUBSTRING] [--out FILE] [--machine mps2-an386]
                                       [--row-by-row never|auto|always]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

from micro_relay.bench.measure import bench_model  # noqa: E402
from micro_relay.examples.shape_family import FAMILY, build_family_model  # noqa: E402
from support.tflm_oracle import tflm_run  # noqa: E402

# The issue's targets: instructions per MAC a whole model may cost on Cortex-M4.
CONV_TARGET = 1.2
FC_TARGET = 1.3


def tflm_oracle(model: bytes):
    def tflite_micro(inputs):
        return tflm_run(model, [np.asarray(x) for x in inputs])

    return tflite_micro


def measure(spec, machine: str, work: Path, row_by_row: str = "never") -> dict:
    model = build_family_model(spec.name)
    path = work / f"{spec.name}.tflite"
    path.write_bytes(model)
    result = bench_model(path, machine, name="family", runs=1, target="cortex-m4", oracle=tflm_oracle(model),
                         row_by_row=row_by_row)
    return {"name": spec.name, "covers": spec.covers, "fc_only": spec.fc_only, "macs": result["macs"],
            "instructions": result["instructions"], "per_mac": result["instructions_per_mac"],
            "cycles": result.get("cycles_estimate"), "match": result["outputs_match"]}


def _cell(value, fmt: str) -> str:
    return "n/a" if value is None else format(value, fmt)


def table(rows: list[dict], machine: str) -> str:
    lines = [f"| model ({machine}, --target cortex-m4) | covers | MACs | instructions | instructions/MAC |"
             " estimated cycles | cycles/MAC | outputs equal TFLite Micro |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['name']} | {r['covers']} | | | | | | error: {r['error']} |")
            continue
        cycles_per_mac = r["cycles"] / r["macs"] if r["cycles"] and r["macs"] else None
        lines.append(f"| {r['name']} | {r['covers']} | {r['macs']:,} | {r['instructions']:,} |"
                     f" {_cell(r['per_mac'], '.3f')} | {_cell(r['cycles'], ',')} | {_cell(cycles_per_mac, '.3f')} |"
                     f" {'yes' if r['match'] else 'NO'} |")
    return "\n".join(lines) + "\n"


def summary(rows: list[dict]) -> str:
    """The worst model of each kind against the issue's targets (a model that failed counts as a miss)."""
    parts = []
    for label, fc_only, target in (("conv models", False, CONV_TARGET), ("FC-only models", True, FC_TARGET)):
        kind = [r for r in rows if r.get("fc_only", False) == fc_only]
        measured = [r for r in kind if "error" not in r and r["per_mac"] is not None]
        if not measured:
            parts.append(f"{label}: none measured")
            continue
        worst = max(measured, key=lambda r: r["per_mac"])
        met = len(measured) == len(kind) and all(r["match"] for r in kind) and worst["per_mac"] <= target
        parts.append(f"worst instructions/MAC among {label}: {worst['per_mac']:.3f} ({worst['name']}),"
                     f" target <= {target}: {'met' if met else 'NOT met'}")
    return "; ".join(parts) + "."


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="run the models whose name contains this text")
    parser.add_argument("--out", default="BENCHMARKS-family.md")
    parser.add_argument("--machine", default="mps2-an386")
    parser.add_argument("--row-by-row", default="never", choices=("never", "auto", "always"),
                        help="as micro-relay compile --row-by-row (default never: the kernels layer by layer)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="mr-family-") as tmp:
        for spec in FAMILY:
            if args.only.lower() not in spec.name.lower():
                continue
            try:
                rows.append(measure(spec, args.machine, Path(tmp), args.row_by_row))
            except Exception as exc:  # a model that cannot be built or run is a row, not the end of the table
                message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                rows.append({"name": spec.name, "covers": spec.covers, "fc_only": spec.fc_only, "error": message})
            print(table(rows[-1:], args.machine).splitlines()[-1], flush=True)
    text = ("## Shape family on Cortex-M4 (QEMU)\n\n"
            "Every model of `micro_relay.examples.shape_family`, whole-model counts (one run, seed 0, "
            f"--row-by-row {args.row_by_row}), outputs checked against TFLite Micro's interpreter. Generated by"
            " `benchmarks/shape_family.py`.\n\n"
            + table(rows, args.machine) + "\n" + summary(rows) + "\n")
    Path(args.out).write_text(text)
    print(summary(rows))
    print(f"wrote {args.out}")
    return 0 if rows and all("error" not in r and r["match"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
