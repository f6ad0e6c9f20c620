"""Compile a .tflite model, build the C on the host, and compare it with TFLite Micro and the reference
interpreter on seeded random inputs. Shared by conformance, kernel and CLI tests."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from micro_relay.compiler import compile_graph, write_output
from micro_relay.frontend.tflite import read_tflite
from micro_relay.ir.types import DType
from micro_relay.passes import run_pipeline
from micro_relay.reference import run as reference_run

from .c_harness import build_host_program, run_host_program
from .tflm_oracle import tflm_run


def random_inputs(graph, rng: np.random.Generator) -> list[np.ndarray]:
    values = []
    for name in graph.inputs:
        t = graph.type_of(name)
        if t.dtype.is_float:
            values.append(rng.standard_normal(t.shape).astype(np.float32))
        elif t.dtype == DType.BOOL:
            values.append(rng.integers(0, 2, t.shape).astype(np.bool_))
        else:
            values.append(rng.integers(t.dtype.min, t.dtype.max + 1, t.shape, dtype=np.int64).astype(t.dtype.numpy))
    return values


@dataclass
class Comparison:
    compiled: list[list[np.ndarray]]
    reference: list[list[np.ndarray]]
    tflm: list[list[np.ndarray]]
    arena_bytes: int


def compare_with_tflm(model_bytes: bytes, seeds=(0, 1, 2), samples=None, workdir: Path | None = None,
                      name: str = "model", tflm_arena: int = 1 << 20, reference: bool = True,
                      **options) -> Comparison:
    """Run compiled C, the reference interpreter (unless reference is False: then the compiled outputs stand in
    for its) and TFLite Micro (with an arena of tflm_arena bytes) on the same inputs; options go to compile_graph
    (row_by_row, target)."""
    graph = run_pipeline(read_tflite(model_bytes, "test model"))
    if samples is None:
        samples = [random_inputs(graph, np.random.default_rng(seed)) for seed in seeds]
    shapes = [graph.type_of(n).shape for n in graph.inputs]
    samples = [[np.asarray(x).reshape(shape) for x, shape in zip(sample, shapes)] for sample in samples]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(workdir or tmp)
        model = compile_graph(graph, name, "test model", **options)
        write_output(model, out)
        exe = build_host_program(out, name)
        output_types = [(graph.type_of(n).dtype.numpy, graph.type_of(n).shape) for n in graph.outputs]
        compiled = run_host_program(exe, samples, output_types)
    reference = ([reference_run(graph, [x.copy() for x in sample]) for sample in samples] if reference
                 else compiled)
    tflm = [tflm_run(model_bytes, [x.copy() for x in sample], len(graph.outputs), tflm_arena) for sample in samples]
    return Comparison(compiled, reference, tflm, model.plan.arena_bytes)


def assert_bit_exact(model_bytes: bytes, samples) -> None:
    """Compiled C and reference equal TFLite Micro bit for bit, float outputs included."""
    result = compare_with_tflm(model_bytes, samples=samples)
    for ours in (result.compiled, result.reference):
        for got, want in zip(ours, result.tflm):
            for a, b in zip(got, want):
                np.testing.assert_array_equal(np.asarray(a).reshape(-1), np.asarray(b).reshape(-1))


def assert_matches(comparison: Comparison, float_rtol: float = 1e-5) -> None:
    """Integer outputs byte for byte; float outputs within float_rtol of TFLite Micro's (relative to the
    output's largest magnitude, so values near zero are judged on the output's scale)."""
    for index, (ours, ref, theirs) in enumerate(zip(comparison.compiled, comparison.reference, comparison.tflm)):
        for k, (c, r, t) in enumerate(zip(ours, ref, theirs)):
            t = np.asarray(t).reshape(c.shape)
            if c.dtype.kind == "f":
                scale = max(float(np.max(np.abs(t))), 1e-30)
                np.testing.assert_allclose(c, t, rtol=float_rtol, atol=float_rtol * scale,
                                           err_msg=f"compiled C vs TFLM, sample {index} output {k}")
                np.testing.assert_allclose(r, t, rtol=float_rtol, atol=float_rtol * scale,
                                           err_msg=f"reference vs TFLM, sample {index} output {k}")
            else:
                np.testing.assert_array_equal(c, t, err_msg=f"compiled C vs TFLM, sample {index} output {k}")
                np.testing.assert_array_equal(r, t, err_msg=f"reference vs TFLM, sample {index} output {k}")
