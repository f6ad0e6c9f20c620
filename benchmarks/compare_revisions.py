"""Benchmark: one revision of the compiler against another, on the shared models, in the same run.

For a redesign that must not change behaviour: every shared model is benched on mps2-an386 (Cortex-M4F, QEMU
-icount: instructions per inference) by the `before` revision (a git revision, checked out into a temporary
worktree) and by this checkout, for the board's own target and, where this checkout knows targets, for the
portable `generic` target too; then the arena, instructions, model flash and runtime code of each, and the
ratios after/before. Everything runs here, one model after the other, so both sides see the same machine.
`--qdq` adds the QDQ int8 ONNX models of tests/support/torch_models.py (onnxruntime's quantize_static,
per-channel weights; made here, seeded), for changes to the ONNX front door or its integer arithmetic.
Writes a Markdown section (BENCHMARKS-revisions.md by default).

    python3 benchmarks/compare_revisions.py --before REV [--models DIR] [--qdq] [--out FILE] [--machine mps2-an386]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL_FOLDERS = ("tflite_micro", "mlcommons_tiny")


def bench(tree: Path, model: Path, machine: str, extra: tuple[str, ...] = ()) -> dict:
    """`micro-relay bench` of the tree's own generator (its scripts/ first on the path)."""
    env = dict(os.environ, PYTHONPATH=str(tree / "scripts"))
    out = subprocess.run([sys.executable, "-m", "micro_relay", "bench", str(model), "--machine", machine,
                          "--runs", "1", "--seed", "1", *extra], cwd=tree, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout)


def qdq_models(folder: Path) -> list[Path]:
    """The QDQ int8 exports of the test suite's PyTorch networks, as the ONNX tests make them."""
    sys.path[:0] = [str(ROOT / "scripts"), str(ROOT / "tests")]
    from frontend.test_onnx_qdq import quantized_model
    from support import torch_models

    return [quantized_model(name, True, folder)[0] for name in sorted(torch_models.MODELS)]


def knows_targets(tree: Path) -> bool:
    return (tree / "scripts" / "micro_relay" / "target" / "__init__.py").is_file()


def ratio(after, before) -> str:
    return f"{after / before:.3f}" if isinstance(after, int) and isinstance(before, int) and before else "-"


def cell(value) -> str:
    return f"{value:,}" if isinstance(value, int) else "-"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="git revision to compare with (e.g. main~5, a tag)")
    parser.add_argument("--models", default=str(ROOT.parent / "shared" / "models"))
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS-revisions.md"))
    parser.add_argument("--machine", default="mps2-an386")
    parser.add_argument("--qdq", action="store_true", help="also the QDQ int8 ONNX models made from the test networks")
    args = parser.parse_args(argv)
    models = [p for folder in MODEL_FOLDERS for p in sorted((Path(args.models) / folder).glob("*.tflite"))]
    qdq_folder = tempfile.TemporaryDirectory(prefix="mr-qdq-")
    if args.qdq:
        models += qdq_models(Path(qdq_folder.name))
    if not models:
        print(f"error: no .tflite models under {args.models}", file=sys.stderr)
        return 2
    before_rev = subprocess.run(["git", "rev-parse", "--short", args.before], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.strip()
    after_rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                               check=True).stdout.strip()
    rows = []
    with tempfile.TemporaryDirectory(prefix="mr-before-") as tmp:
        before = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(before), before_rev], cwd=ROOT, check=True)
        try:
            for model in models:
                old = bench(before, model, args.machine)
                new = bench(ROOT, model, args.machine)
                portable = bench(ROOT, model, args.machine, ("--target", "generic")) if knows_targets(ROOT) else {}
                rows.append((model.stem, old, new, portable))
                print(f"{model.stem}: {old.get('instructions')} -> {new.get('instructions')} "
                      f"(generic {portable.get('instructions')})", file=sys.stderr)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, check=False)
    target = next((r[2].get("target") for r in rows if r[2].get("target")), "the board's")
    lines = [
        f"## Revisions compared: {before_rev} (before) and {after_rev} (after)",
        "",
        f"Measured in one run by `python3 benchmarks/compare_revisions.py --before {args.before}"
        f"{' --qdq' if args.qdq else ''}` on "
        f"{args.machine} (QEMU -icount, instructions per inference, seed 1). After: compiled for {target} (the "
        "board's target) and for `generic` (portable kernels, no DSP scratch) on the same board. Outputs: equal "
        "to the reference interpreter's in every run marked yes.",
        "",
        "| model | instructions before | after | after/before | arena before | after | generic | model flash "
        "before | after | runtime code before | after | generic instructions | outputs |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, old, new, portable in rows:
        if all("error" in r for r in (old, new)):  # refused by both revisions: nothing to compare
            lines.append(f"| {name} | refused by both: {new['error'].removeprefix('error: ')} |" + " |" * 11)
            continue
        ok = all(r.get("outputs_match") for r in (old, new, portable) if r)
        lines.append(f"| {name} | {cell(old.get('instructions'))} | {cell(new.get('instructions'))} | "
                     f"{ratio(new.get('instructions'), old.get('instructions'))} | {cell(old.get('arena_bytes'))} | "
                     f"{cell(new.get('arena_bytes'))} | {cell(portable.get('arena_bytes'))} | "
                     f"{cell(old.get('model_flash_bytes'))} | {cell(new.get('model_flash_bytes'))} | "
                     f"{cell(old.get('runtime_code_bytes'))} | {cell(new.get('runtime_code_bytes'))} | "
                     f"{cell(portable.get('instructions'))} | {'yes' if ok else 'NO'} |")
    Path(args.out).write_text("\n".join(lines) + "\n")
    qdq_folder.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
