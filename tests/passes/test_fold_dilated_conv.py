"""The dilated-convolution fold (passes/fold_dilated_conv.py) on TensorFlow's atrous chain
SPACE_TO_BATCH_ND -> VALID CONV_2D / DEPTHWISE_CONV_2D -> BATCH_TO_SPACE_ND.

    x ─ space_to_batch_nd ─ conv (per phase) ─ batch_to_space_nd ─► y   becomes   x ─ conv(dilation) ─► y

The oracle is TFLite Micro running the same convolution as one dilated CONV_2D / DEPTHWISE_CONV_2D with the
same weights (its own dilated kernel: the chain's padding is uninitialized memory in TFLite Micro's
SPACE_TO_BATCH_ND). The compiled C of the folded graph and of the unfolded one (the pipeline without this
pass, which runs the space/batch kernels) must both equal it, integers bit for bit."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from support.c_harness import compile_and_run
from support.model_check import random_inputs
from support.tflite_movement_models import dilated_conv_models
from support.tflm_oracle import tflm_run

from micro_relay.frontend.tflite import read_tflite
from micro_relay.passes import run_pipeline
from micro_relay.passes.fold_dilated_conv import fold_dilated_conv
from micro_relay.passes.pipeline import DEFAULT_PIPELINE

WITHOUT_FOLD = tuple(step for step in DEFAULT_PIPELINE if step[0] != "fold_dilated_conv")

CASES = {
    "int8 3x3 dilation 2 SAME, odd size": dict(),
    "int8 zero point, dilation 3x2": dict(shape=(1, 11, 8, 4), dilation=(3, 2), in_quant=(0.04, -9), out_zp=5),
    "int8 depthwise dilation 2 SAME": dict(depthwise=True, shape=(1, 12, 12, 8), in_quant=(0.05, 17)),
    "int8 VALID (no padding, no crop)": dict(shape=(1, 8, 8, 3), padding="VALID"),
    "float32 dilation 2": dict(dtype="float32"),
    "float32 depthwise 5x5 dilation 4": dict(dtype="float32", depthwise=True, kernel=(5, 5), dilation=(4, 4),
                                             shape=(1, 20, 20, 2)),
}


def _ops(graph) -> list[str]:
    return [n.op for n in graph.nodes]


def _assert_equal(ours, theirs, dtype, what):
    ours, theirs = np.asarray(ours), np.asarray(theirs).reshape(np.shape(ours))
    if dtype == "float32":
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5 * max(float(np.abs(theirs).max()), 1e-30),
                                   err_msg=what)
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=what)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_folded_and_unfolded_chain_match_tflm_dilated_conv(case):
    chain, direct = dilated_conv_models(**case)
    folded = run_pipeline(read_tflite(chain, "chain"))
    unfolded = run_pipeline(read_tflite(chain, "chain"), WITHOUT_FOLD)
    assert "nn.space_to_batch_nd" not in _ops(folded) and "nn.batch_to_space_nd" not in _ops(folded)
    assert "nn.space_to_batch_nd" in _ops(unfolded) and "nn.batch_to_space_nd" in _ops(unfolded)
    samples = [random_inputs(folded, np.random.default_rng(seed)) for seed in (0, 1)]
    dtype = case.get("dtype", "int8")
    with tempfile.TemporaryDirectory() as tmp:
        ours_folded = compile_and_run(folded, samples, Path(tmp) / "folded")
        ours_unfolded = compile_and_run(unfolded, samples, Path(tmp) / "unfolded")
    for index, sample in enumerate(samples):
        theirs = tflm_run(direct, [x.copy() for x in sample])[0]
        _assert_equal(ours_folded[index][0], theirs, dtype, f"folded vs TFLM dilated conv, sample {index}")
        _assert_equal(ours_unfolded[index][0], theirs, dtype, f"unfolded vs TFLM dilated conv, sample {index}")


def test_valid_chain_also_matches_tflm_running_the_chain():
    """Without padding TFLite Micro's own chain is well defined: it agrees too."""
    chain, _ = dilated_conv_models(shape=(1, 8, 8, 3), padding="VALID", in_quant=(0.05, 4))
    graph = run_pipeline(read_tflite(chain, "chain"))
    sample = random_inputs(graph, np.random.default_rng(3))
    with tempfile.TemporaryDirectory() as tmp:
        ours = compile_and_run(graph, [sample], Path(tmp))[0][0]
    _assert_equal(ours, tflm_run(chain, [x.copy() for x in sample])[0], "int8", "folded vs TFLM chain")


def test_fold_leaves_a_chain_whose_intermediate_is_read_twice():
    """A phase tensor that is also a graph output cannot disappear."""
    chain, _ = dilated_conv_models()
    graph = run_pipeline(read_tflite(chain, "chain"), WITHOUT_FOLD)
    phases = next(n for n in graph.nodes if n.op == "nn.space_to_batch_nd").outputs[0]
    graph = replace(graph, outputs=(*graph.outputs, phases))
    assert "nn.space_to_batch_nd" in _ops(fold_dilated_conv(graph))
