"""Mutation fuzzing of the project's own models (fuzz/seeds.py): byte flips, truncations and hostile values
in named flatbuffer fields, from a fixed seed.

The bounded run compiles MICRO_RELAY_FUZZ_FILES mutants (default 300) in one child process with an
address-space limit and a per-file timeout (fuzz/mutation_run.py), and fails on anything but a clean
one-line error or a compile (some compiles are built with -Werror). A sample goes through the CLI end to
end: exit status 2, one `error:` line on stderr and no output folder, or exit 0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from fuzz.mutations import MUTATION_CLASSES, mutants
from fuzz.seeds import seed_models

FILES = int(os.environ.get("MICRO_RELAY_FUZZ_FILES", "300"))
RUNNER = Path(__file__).with_name("mutation_run.py")


def test_bounded_mutation_run():
    result = subprocess.run([sys.executable, str(RUNNER), "--files", str(FILES), "--seed", "13", "--timeout", "30",
                             "--memory-mb", "3000", "--build-every", "25"],
                            capture_output=True, text=True, timeout=120 + FILES)
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads(result.stdout)
    counts = summary["counts"]
    assert sum(c["tried"] for c in counts.values()) == FILES
    assert not summary["bugs"], json.dumps(summary["bugs"], indent=1)
    for kind in MUTATION_CLASSES:  # every class ran, and every file ended in an error or a compile
        assert counts[kind]["tried"] > 0, kind
        assert counts[kind].get("error", 0) + counts[kind].get("compiled", 0) == counts[kind]["tried"], counts[kind]


def _cli_sample(count: int):
    """Mutants of several classes, the first few that fail and the first few that compile."""
    failing, compiling = [], []
    from fuzz.outcome import compile_bytes

    for index, name, kind, data in mutants(seed_models(), 400, seed=29):
        outcome = compile_bytes(data)
        bucket = failing if outcome.kind == "error" else compiling
        if len(bucket) < count and all(k != kind for _, k, _ in bucket):
            bucket.append((f"{index}-{name}", kind, data))
        if len(failing) == count and len(compiling) >= 2:
            break
    return failing + compiling[:2]


def test_cli_end_to_end(tmp_path):
    """A sample of mutants (one per class that fails, two that compile) through `python -m micro_relay`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    for label, kind, data in _cli_sample(8):
        model = tmp_path / f"{label}.tflite"
        model.write_bytes(data)
        out = tmp_path / f"out-{label}"
        result = subprocess.run([sys.executable, "-m", "micro_relay", "compile", str(model), "-o", str(out)],
                                capture_output=True, text=True, timeout=300, env=env)
        if result.returncode == 2:
            lines = result.stderr.splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: ") and lines[0].endswith(")"), (kind, result.stderr)
            assert not out.exists(), (kind, sorted(p.name for p in out.rglob("*")))
        else:
            assert result.returncode == 0, (kind, result.stderr)
            assert list(out.glob("*.c")), (kind, result.stderr)


def test_mutations_are_deterministic():
    first = [np.frombuffer(d, np.uint8).sum() for _, _, _, d in mutants(seed_models(), 30, seed=5)]
    again = [np.frombuffer(d, np.uint8).sum() for _, _, _, d in mutants(seed_models(), 30, seed=5)]
    assert first == again
