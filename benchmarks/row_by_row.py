"""Benchmark: the arena of every model layer by layer and with its chains of convolutions run row by row
(schedule/chains.py, `--row-by-row auto`, the default), side by side in one run, and on the Cortex-M4 (QEMU
mps2-an386, -icount: one instruction a virtual nanosecond) the instructions of both, outputs compared with
TFLite Micro's.

Models: every model of the shared models folder, the shape family (micro_relay.examples.shape_family, seeded
int8 blocks of the shapes real networks have), and MobileNetV2 1.0 int8 with seeded weights at 96x96 and 224x224
(tests/support/tflite_padded_models.py, arena only: too slow for QEMU here). Arenas for `generic` (portable
kernels, no DSP scratch) and `cortex-m4` (the Arm DSP kernels and their scratch).

    python3 benchmarks/row_by_row.py [--out FILE] [--no-qemu] [--models DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

from micro_relay.compiler import compile_graph, prepare_graph  # noqa: E402
from micro_relay.examples.shape_family import FAMILY, build_family_model  # noqa: E402
from support.shared_models import CONFORMANCE_MODELS  # noqa: E402
from support.tflite_padded_models import mobilenet_v2  # noqa: E402


def models(shared: Path) -> dict[str, tuple[bytes, bool]]:
    """name -> (model bytes, small enough for QEMU here)."""
    found = {}
    for relative in CONFORMANCE_MODELS:
        if (shared / relative).is_file():
            found[Path(relative).stem] = ((shared / relative).read_bytes(), "pretrainedResnet" not in relative)
    found.update({spec.name: (build_family_model(spec.name), True) for spec in FAMILY if not spec.fc_only})
    found["MobileNetV2 1.0 96x96"] = (mobilenet_v2(96), False)
    found["MobileNetV2 1.0 224x224"] = (mobilenet_v2(224), False)
    return found


def arenas(path: Path, target: str) -> tuple[int, int, str]:
    graph = prepare_graph(path)
    before = compile_graph(graph, "model", path.name, target=target, row_by_row="never")
    after = compile_graph(graph, "model", path.name, target=target)
    fused = [n.node for n in after.lowered.nodes if n.node.op == "fused.rows"]
    return before.plan.arena_bytes, after.plan.arena_bytes, ", ".join(str(len(n.attrs["members"])) for n in fused)


def instructions(path: Path, model: bytes, mode: str) -> int:
    from micro_relay.bench.measure import bench_graph
    from support.cortex_m_cases import BOARD, tflite_micro

    graph = prepare_graph(path)
    result = bench_graph(graph, "model", str(path), BOARD, runs=1, seed=1,
                         oracle=tflite_micro(model, len(graph.outputs)), row_by_row=mode)
    if not (result["outputs_match"] and result["max_abs_diff"] == 0):
        raise SystemExit(f"{path.name}: outputs differ from TFLite Micro's")
    return result["instructions"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--no-qemu", action="store_true")
    parser.add_argument("--models", type=Path, default=ROOT.parent / "shared" / "models")
    args = parser.parse_args(argv)
    rows = ["| model | generic arena B, layer by layer → row by row | layers per chain | cortex-m4 arena B | "
            "layers per chain | M4 instructions layer by layer → row by row | ratio |",
            "|---|---:|---|---:|---|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, (model, small) in models(args.models).items():
            path = Path(tmp) / f"{name.replace(' ', '_')}.tflite"
            path.write_bytes(model)
            g_before, g_after, g_chains = arenas(path, "generic")
            m_before, m_after, m_chains = arenas(path, "cortex-m4")
            timing = " | "
            if small and not args.no_qemu:
                before, after = instructions(path, model, "never"), instructions(path, model, "auto")
                timing = f"{before:,} → {after:,} | {after / before:.3f}"
            row = (f"| {name} | {g_before:,} → {g_after:,} | {g_chains or '-'} | {m_before:,} → {m_after:,} | "
                   f"{m_chains or '-'} | {timing} |")
            rows.append(row)
            print(row, flush=True)
    text = "\n".join(rows) + "\n"
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
