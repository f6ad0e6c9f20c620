"""Benchmark: the arena of every model layer by layer and with its chains of convolutions run row by row
(schedule/chains.py, `--row-by-row auto`, the default), side by side in one run, and on the Cortex-M4 (QEMU
mps2-an386, -icount: one instruction a virtual nanosecond) the instructions of both, outputs compared with
TFLite Micro's.

Models: every model of the shared models folder, the shape family (micro_relay.examples.shape_family, seeded
int8 blocks of the shapes real networks have), and MobileNetV2 1.0 int8 with seeded weights at 96x96 and 224x224
(tests/support/tflite_padded_models.py), the 224x224 one also with `--ram-budget 176K` (and kws_ref_model with
`--ram-budget 11K`). Arenas for `generic`
(portable kernels, no DSP scratch) and `cortex-m4` (the Arm DSP kernels and their scratch); "patches" lists the
grid of every chain the default runs patch by patch on the Cortex-M4.

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


BUDGET_176K = 176 * 1024


def models(shared: Path) -> dict[str, tuple[bytes, bool, int | None]]:
    """name -> (model bytes, small enough for QEMU here, RAM budget or None)."""
    found = {}
    for relative in CONFORMANCE_MODELS:
        if (shared / relative).is_file():
            found[Path(relative).stem] = ((shared / relative).read_bytes(), "pretrainedResnet" not in relative, None)
    if "kws_ref_model" in found:  # on the Cortex-M4 only portable kernels at its peak reach 11 KB (schedule/lean.py)
        found["kws_ref_model, --ram-budget 11K"] = (found["kws_ref_model"][0], True, 11 * 1024)
    found.update({spec.name: (build_family_model(spec.name), True, None) for spec in FAMILY if not spec.fc_only})
    found["MobileNetV2 1.0 96x96"] = (mobilenet_v2(96), True, None)
    found["MobileNetV2 1.0 224x224"] = (mobilenet_v2(224), True, None)
    found["MobileNetV2 1.0 224x224, --ram-budget 176K"] = (found["MobileNetV2 1.0 224x224"][0], True, BUDGET_176K)
    return found


def arenas(path: Path, target: str, budget: int | None) -> tuple[int, int, str, str]:
    """Arenas layer by layer and by default (or within the budget), layers per chain, and the patch grids."""
    graph = prepare_graph(path)
    before = compile_graph(graph, "model", path.name, target=target, row_by_row="never")
    after = compile_graph(graph, "model", path.name, target=target, ram_budget=budget)
    fused = [n for n in after.lowered.nodes if n.node.op == "fused.rows"]
    grids = ", ".join(f"{n.plan.patches[0]}x{n.plan.patches[1]}" for n in fused if n.plan.patches != (1, 1))
    chains = ", ".join(str(len(n.node.attrs["members"])) for n in fused)
    return before.plan.arena_bytes, after.plan.arena_bytes, chains, grids


def instructions(path: Path, model: bytes, mode: str, budget: int | None) -> int:
    from micro_relay.bench.measure import bench_graph
    from support.cortex_m_cases import BOARD
    from support.tflm_oracle import tflm_run

    graph = prepare_graph(path)
    outputs = len(graph.outputs)
    result = bench_graph(graph, "model", str(path), BOARD, runs=1, seed=1, row_by_row=mode, ram_budget=budget,
                         oracle=lambda inputs: tflm_run(model, inputs, outputs, 16 << 20))
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
            "layers per chain | patches | M4 instructions layer by layer → row by row | ratio |",
            "|---|---:|---|---:|---|---|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, (model, small, budget) in models(args.models).items():
            path = Path(tmp) / "model.tflite"
            path.write_bytes(model)
            g_before, g_after, g_chains, _ = arenas(path, "generic", budget)
            m_before, m_after, m_chains, m_grids = arenas(path, "cortex-m4", budget)
            timing = " | "
            if small and not args.no_qemu:
                before = instructions(path, model, "never", None)
                after = instructions(path, model, "auto", budget)
                timing = f"{before:,} → {after:,} | {after / before:.3f}"
            row = (f"| {name} | {g_before:,} → {g_after:,} | {g_chains or '-'} | {m_before:,} → {m_after:,} | "
                   f"{m_chains or '-'} | {m_grids or '-'} | {timing} |")
            rows.append(row)
            print(row, flush=True)
    text = "\n".join(rows) + "\n"
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
