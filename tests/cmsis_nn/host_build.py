"""Compile a model with --kernels cmsis-nn, build it on the host against CMSIS-NN's portable C (strict flags
for our code, CMSIS-NN's headers as system headers) and run it on samples."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np

from micro_relay.compiler import compile_graph, write_output
from support.c_harness import MAIN_TEMPLATE, STRICT_FLAGS, run_host_program


def compile_and_run_cmsis(graph, samples, out_dir: Path, root: Path, library: Path, name: str = "model"):
    """(outputs per sample, the compiled model, its plan report)."""
    model = compile_graph(graph, name, "test model", kernels="cmsis-nn")
    write_output(model, out_dir)
    (out_dir / "harness_main.c").write_text(MAIN_TEMPLATE.format(name=name, macro=name.upper()))
    exe = out_dir / "model_harness"
    sources = sorted(str(p) for p in out_dir.glob("*.c"))
    command = ["gcc", *STRICT_FLAGS, "-Wconversion", "-O2", "-I", str(out_dir), "-isystem", str(root / "Include"),
               *sources, str(library), "-o", str(exe), "-lm"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, f"C build failed:\n{' '.join(command)}\n{result.stderr[-4000:]}"
    output_types = [(graph.type_of(n).dtype.numpy, graph.type_of(n).shape) for n in graph.outputs]
    shaped = [[np.ascontiguousarray(x).reshape(graph.type_of(n).shape) for x, n in zip(sample, graph.inputs)]
              for sample in samples]
    outputs = run_host_program(exe, shaped, output_types)
    return outputs, model, json.loads(model.files[f"{name}.plan.json"])


def cmsis_nodes(report: dict) -> list[dict]:
    """The report's nodes that run on CMSIS-NN."""
    return [n for n in report["nodes"] if n.get("kernel", {}).get("cmsis_nn", "").startswith("CMSIS-NN ")]
