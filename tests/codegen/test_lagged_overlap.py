"""Lagged in-place in the generated C: one convolution, depthwise convolution or pool per model, its output
planned to start exactly `delta` bytes below its input (the most overlap the op declares, kernels/overlap.py),
and the compiled C still bit-exact with TFLite Micro. Each case covers one kernel path the declaration
distinguishes: the int8 pointwise tiles (narrow rows, wide rows, several images), the window walks (stride,
padding, dilation, depth multiplier), int16 and float, and both pools."""

from __future__ import annotations

import pytest

from support.model_check import assert_matches, compare_with_tflm
from support.tflite_models import conv2d_model, depthwise_model, pool_model
from micro_relay.frontend.tflite import read_tflite
from micro_relay.passes import run_pipeline
from micro_relay.plan import plan_memory
from micro_relay.plan.buffers import node_overlap

CASES = {
    "conv_pointwise_narrow_rows": lambda: conv2d_model(input_shape=(1, 9, 5, 16), out_channels=16, kernel=(1, 1)),
    "conv_pointwise_widening": lambda: conv2d_model(input_shape=(1, 12, 20, 4), out_channels=12, kernel=(1, 1)),
    "conv_pointwise_two_images": lambda: conv2d_model(input_shape=(2, 5, 7, 8), out_channels=8, kernel=(1, 1)),
    "conv_3x3_same": lambda: conv2d_model(input_shape=(1, 9, 7, 8), out_channels=8, in_zp=5),
    "conv_3x3_stride2": lambda: conv2d_model(input_shape=(1, 12, 10, 4), out_channels=8, stride=(2, 2)),
    "conv_3x3_dilated": lambda: conv2d_model(input_shape=(1, 10, 8, 4), out_channels=4, dilation=(2, 2)),
    "conv_1x1_stride2": lambda: conv2d_model(input_shape=(1, 8, 8, 8), out_channels=16, kernel=(1, 1),
                                             stride=(2, 2), padding="VALID"),
    "conv_int16_pointwise": lambda: conv2d_model("int16", input_shape=(1, 6, 5, 8), out_channels=8, kernel=(1, 1)),
    "conv_float_pointwise": lambda: conv2d_model("float32", input_shape=(1, 4, 20, 8), out_channels=8,
                                                 kernel=(1, 1)),
    "depthwise_3x3_same": lambda: depthwise_model(input_shape=(1, 10, 6, 8)),
    "depthwise_3x3_stride2": lambda: depthwise_model(input_shape=(1, 12, 12, 8), stride=(2, 2)),
    "depthwise_multiplier2": lambda: depthwise_model(input_shape=(2, 6, 5, 4), depth_multiplier=2),
    "depthwise_int16": lambda: depthwise_model("int16", input_shape=(1, 7, 5, 4)),
    "depthwise_float": lambda: depthwise_model("float32", input_shape=(1, 7, 5, 4)),
    "max_pool_3x3_same": lambda: pool_model("MAX_POOL_2D", input_shape=(1, 9, 7, 8), filter_size=(3, 3),
                                            stride=(1, 1), padding="SAME"),
    "avg_pool_2x2": lambda: pool_model(input_shape=(2, 8, 6, 8)),
    "avg_pool_int16": lambda: pool_model(dtype="int16", input_shape=(1, 8, 6, 4), filter_size=(3, 3),
                                         stride=(1, 1), padding="SAME"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_output_over_its_input_stays_bit_exact(case):
    model = CASES[case]()
    graph = run_pipeline(read_tflite(model, case))
    assert len(graph.nodes) == 1
    delta = node_overlap(graph)[0]
    plan = plan_memory(graph)
    node = graph.nodes[0]
    at_in, at_out = plan.tensor_offset(node.inputs[0]), plan.tensor_offset(node.outputs[0])
    assert at_out - at_in == delta < 0  # the output starts exactly delta below its input
    assert at_out + graph.type_of(node.outputs[0]).nbytes > at_in  # and they do share bytes
    comparison = compare_with_tflm(model)
    assert comparison.arena_bytes == plan.arena_bytes
    assert_matches(comparison)
