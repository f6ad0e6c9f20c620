"""Every shared int8 model compiled with --kernels cmsis-nn and built on the host against CMSIS-NN's portable C
gives TFLite Micro's outputs exactly, with its convolutions and dense layers on CMSIS-NN."""

from __future__ import annotations

import numpy as np
import pytest

from micro_relay.compiler import prepare_graph
from support.model_check import random_inputs
from support.tflm_oracle import tflm_run

from .host_build import cmsis_nodes, compile_and_run_cmsis

MODELS = ("mlcommons_tiny/kws_ref_model.tflite", "tflite_micro/person_detect.tflite",
          "mlcommons_tiny/pretrainedResnet_quant.tflite", "mlcommons_tiny/ad01_int8.tflite")


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.rsplit("/", 1)[-1].removesuffix(".tflite"))
def test_shared_model_equals_tflm(tmp_path, cmsis_nn_root, host_cmsis_nn, shared_models, model):
    path = shared_models / model
    if not path.is_file():
        pytest.skip(f"{model} is absent")
    graph = prepare_graph(path)
    samples = [random_inputs(graph, np.random.default_rng(seed)) for seed in (0, 1, 2)]
    outputs, _, report = compile_and_run_cmsis(graph, samples, tmp_path, cmsis_nn_root, host_cmsis_nn)
    layers = [n for n in report["nodes"] if n["op"] in ("nn.conv2d", "nn.depthwise_conv2d", "nn.dense")]
    assert layers and len(cmsis_nodes(report)) == len(layers), [n.get("kernel") for n in layers]
    model_bytes = path.read_bytes()
    for index, (sample, got) in enumerate(zip(samples, outputs)):
        want = tflm_run(model_bytes, [x.copy() for x in sample], len(graph.outputs))
        for k, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_array_equal(g, np.asarray(w).reshape(g.shape), err_msg=f"sample {index} output {k}")
