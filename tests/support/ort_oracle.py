"""onnxruntime as the oracle for ONNX models, QDQ models above all.

The oracle session runs with every graph optimization off (`GraphOptimizationLevel.ORT_DISABLE_ALL`): QDQ
executes as written, dequantize -> float op -> quantize, which is what the model file means and the same on
every CPU. With optimizations on, onnxruntime fuses DQ -> op -> Q into its own int8 kernels, whose rounding
depends on the instruction set it finds (AVX-512 VNNI or not): up to 22 output steps apart on one MLP.
That session may be shown for information (`optimized_session`, e.g. in a benchmark), never asserted.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def oracle_session(path: Path):
    """The session every test and benchmark compares against: the model executed op by op, as written."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def optimized_session(path: Path, threads: int | None = None):
    """onnxruntime as a user runs it (all graph optimizations, CPU-dependent int8 kernels): for timing and
    information only."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = threads
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def run_each(session, inputs: list[np.ndarray], name: str = "input") -> list[np.ndarray]:
    """The first output of the session for each single-input sample."""
    return [session.run(None, {name: x})[0] for x in inputs]
