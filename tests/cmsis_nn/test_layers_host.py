"""Single-layer int8 models that reach each CMSIS-NN path the adapters use (1x1 fast, strided 1x1, 1xN,
im2col with padding and dilation, depthwise 3x3, optimized and generic depthwise, per-tensor and per-channel
fully connected, batches), and the layers that must fall back to our kernels: compiled with
--kernels cmsis-nn, built against CMSIS-NN's portable C, equal to TFLite Micro on random inputs."""

from __future__ import annotations

import numpy as np
import pytest

from micro_relay.frontend.tflite import read_tflite
from micro_relay.passes import run_pipeline
from support.model_check import random_inputs
from support.tflite_models import conv2d_model, depthwise_model, fully_connected_model
from support.tflm_oracle import tflm_run

from .host_build import cmsis_nodes, compile_and_run_cmsis

# name -> (model bytes, the CMSIS-NN function the report must name, or None for a fallback)
CASES = {
    "conv_1x1_fast": (lambda: conv2d_model(input_shape=(1, 5, 4, 8), out_channels=12, kernel=(1, 1), in_zp=-3,
                                           out_zp=5), "arm_convolve_1x1_s8_fast"),
    "conv_1x1_stride2": (lambda: conv2d_model(input_shape=(1, 7, 7, 4), out_channels=6, kernel=(1, 1),
                                              stride=(2, 2), padding="VALID"), "arm_convolve_1x1_s8"),
    "conv_1xn": (lambda: conv2d_model(input_shape=(1, 1, 16, 4), out_channels=5, kernel=(1, 3), in_zp=7),
                 "arm_convolve_1_x_n_s8"),
    "conv_3x3_same_stride2": (lambda: conv2d_model(input_shape=(2, 9, 8, 3), out_channels=7, stride=(2, 2),
                                                   in_zp=-128, activation="RELU6"), "arm_convolve_s8"),
    "conv_dilated_per_tensor": (lambda: conv2d_model(input_shape=(1, 10, 10, 5), out_channels=4, kernel=(3, 3),
                                                     dilation=(2, 2), per_channel=False, in_zp=12),
                                "arm_convolve_s8"),
    "depthwise_3x3": (lambda: depthwise_model(input_shape=(1, 9, 7, 8), in_zp=-4, out_zp=3),
                      "arm_depthwise_conv_3x3_s8"),
    "depthwise_5x5_opt": (lambda: depthwise_model(input_shape=(1, 9, 9, 6), kernel=(5, 5), stride=(2, 2)),
                          "arm_depthwise_conv_s8_opt"),
    "depthwise_multiplier": (lambda: depthwise_model(input_shape=(1, 6, 6, 3), depth_multiplier=2),
                             "arm_depthwise_conv_s8"),
    "depthwise_batches_dilated": (lambda: depthwise_model(input_shape=(2, 8, 8, 4), dilation=(2, 2)),
                                  "arm_depthwise_conv_s8"),
    "dense_per_tensor": (lambda: fully_connected_model(input_shape=(3, 20), units=9, in_zp=-6, out_zp=2),
                         "arm_fully_connected_s8"),
    "dense_per_channel": (lambda: fully_connected_model(input_shape=(1, 33), units=7, per_channel=True,
                                                        bias=None), "arm_fully_connected_per_channel_s8"),
    "conv_no_bias_falls_back": (lambda: conv2d_model(input_shape=(1, 6, 6, 4), out_channels=4, bias=None), None),
    "conv_grouped_falls_back": (lambda: conv2d_model(input_shape=(1, 6, 6, 4), out_channels=4, groups=2), None),
    "conv_int16_falls_back": (lambda: conv2d_model(dtype="int16", input_shape=(1, 5, 5, 3), out_channels=4), None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_equals_tflm(tmp_path, cmsis_nn_root, host_cmsis_nn, case):
    build, function = CASES[case]
    model_bytes = build()
    graph = run_pipeline(read_tflite(model_bytes, case))
    samples = [random_inputs(graph, np.random.default_rng(seed)) for seed in (0, 1, 2)]
    outputs, _, report = compile_and_run_cmsis(graph, samples, tmp_path, cmsis_nn_root, host_cmsis_nn)
    on_cmsis = cmsis_nodes(report)
    if function is None:
        assert not on_cmsis
    else:
        assert [n["kernel"]["cmsis_nn"].split()[1] for n in on_cmsis] == [function]
    for index, (sample, got) in enumerate(zip(samples, outputs)):
        want = tflm_run(model_bytes, [x.copy() for x in sample], len(graph.outputs))
        for k, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_array_equal(g, np.asarray(w).reshape(g.shape), err_msg=f"sample {index} output {k}")
