"""Benchmark: the arena bytes the copies a model's graph asks for cost, and what the compiler saves by not making
them: PADs folded into the convolution or max pool that reads them (passes/fold_padding.py), slices that are
views and concatenations written in place (plan/buffers.py steps 2 and 3').

Models: MobileNetV2 1.0 as TensorFlow converts it (every stride-2 layer a PAD (0, 1) then VALID), int8 with seeded
weights, at 96x96 and 224x224, and its first stages at 48x48, written by the project's TFLite writer
(tests/support/tflite_padded_models.py); the small networks of tests/support/tflite_view_models.py; and every
model of the shared models folder. Each is compiled (for --target, cortex-m4 by default) with and without the
fold and with views or copies only, side by side in one run: the arena compile_graph plans. With --qemu, the
models of at most 64x64 also run on the Cortex-M4 board (mps2-an386) under QEMU, outputs compared with TFLite
Micro's, and their instruction counts (one virtual nanosecond per instruction) are listed too.

    python3 benchmarks/no_copies.py [--out BENCHMARKS-no-copies.md] [--qemu] [--models DIR] [--target NAME]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

from micro_relay.frontend.tflite import read_tflite  # noqa: E402
from micro_relay.lower import lower  # noqa: E402
from micro_relay.passes import run_pipeline  # noqa: E402
from micro_relay.passes.pipeline import DEFAULT_PIPELINE  # noqa: E402
from micro_relay.plan.memory_plan import plan_memory  # noqa: E402
from micro_relay.plan.room import use_room  # noqa: E402
from micro_relay.plan.state import store_states_in_place  # noqa: E402
from micro_relay.target import get_target  # noqa: E402
from support.shared_models import CONFORMANCE_MODELS, STATEFUL_MODELS  # noqa: E402
from support.tflite_padded_models import mobilenet_v2, mobilenet_v2_head  # noqa: E402
from support.tflite_view_models import concat_rows_model, slice_model, split_rows_model  # noqa: E402

WITHOUT_FOLD = tuple(step for step in DEFAULT_PIPELINE if step[0] != "fold_padding")


def models(shared: Path) -> dict[str, tuple[bytes, bool]]:
    """name -> (model bytes, small enough for the board)."""
    found = {"MobileNetV2 head 48x48": (mobilenet_v2_head(48), True), "MobileNetV2 1.0 64x64": (mobilenet_v2(64), True),
             "MobileNetV2 1.0 96x96": (mobilenet_v2(96), False), "MobileNetV2 1.0 224x224": (mobilenet_v2(224), False),
             "two branches joined on the height": (concat_rows_model(), True),
             "split, convolve each part, join": (split_rows_model(), True),
             "slice of a feature map": (slice_model(), True)}
    for relative in (*CONFORMANCE_MODELS, *STATEFUL_MODELS):
        if (shared / relative).is_file():
            found[relative] = ((shared / relative).read_bytes(), False)
    return found


def arena(model: bytes, pipeline, views: tuple[bool, ...] | None, target: str) -> int:
    """The arena compile_graph plans (states in place, the room search), with these settings of the views."""
    lowered = store_states_in_place(lower(run_pipeline(read_tflite(model, "model"), pipeline), get_target(target)))
    lowered, _ = use_room(lowered)
    return plan_memory(lowered, views=views).arena_bytes


def instructions(name: str, model: bytes, pipeline, folder: Path, target: str) -> str:
    from micro_relay.bench.measure import bench_graph
    from support.cortex_m_cases import BOARD, tflite_micro

    path = folder / "model.tflite"
    path.write_bytes(model)
    graph = run_pipeline(read_tflite(model, name), pipeline)
    result = bench_graph(graph, "model", str(path), BOARD, runs=1, seed=1, target=target, oracle=tflite_micro(model))
    if not (result["outputs_match"] and result["max_abs_diff"] == 0):
        raise SystemExit(f"{name}: outputs differ from TFLite Micro's")
    return f"{result['instructions']:,}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--qemu", action="store_true")
    parser.add_argument("--models", type=Path, default=ROOT.parent / "shared" / "models")
    parser.add_argument("--target", default="cortex-m4", help="the compile's target (--qemu runs cortex-m4 only)")
    args = parser.parse_args(argv)
    rows = ["| model | copies (PADs kept, slices and concatenations copied) | PADs folded | PADs folded, views "
            "and concatenations in place | ratio |" + (" M4 instructions, PADs kept → folded |" if args.qemu else ""),
            "|---|---:|---:|---:|---:|" + ("---:|" if args.qemu else "")]
    with tempfile.TemporaryDirectory() as tmp:
        for name, (model, small) in models(args.models).items():
            before = arena(model, WITHOUT_FOLD, (False,), args.target)
            folded = arena(model, DEFAULT_PIPELINE, (False,), args.target)
            after = arena(model, DEFAULT_PIPELINE, None, args.target)
            row = f"| {name} | {before:,} | {folded:,} | {after:,} | {after / before:.2f} |"
            if args.qemu:
                row += (f" {instructions(name, model, WITHOUT_FOLD, Path(tmp), args.target)} → "
                        f"{instructions(name, model, DEFAULT_PIPELINE, Path(tmp), args.target)} |" if small else " |")
            rows.append(row)
            print(row, flush=True)
    text = "\n".join(rows) + "\n"
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
