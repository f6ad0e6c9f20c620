"""The plan report names, per layer, the kernel that runs it ({backend: loops}) and the loop structure it takes
for the layer's shapes: the Arm DSP kernel's on a Cortex-M4 target, the portable one's on the generic target."""

from __future__ import annotations

import json

from micro_relay.compiler import compile_graph, prepare_graph
from support.tflite_models import conv2d_model, depthwise_model


def kernel_of(tmp_path, data: bytes, target: str) -> dict:
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    graph = prepare_graph(path)
    report = json.loads(compile_graph(graph, "m", str(path), target=target).files["m.plan.json"])
    return report["nodes"][0]["kernel"]


def kernels(tmp_path, data: bytes) -> dict:
    """{"dsp": the Cortex-M4 kernel's loops, "portable": the generic target's}; each target names one kernel."""
    m4, generic = kernel_of(tmp_path, data, "cortex-m4"), kernel_of(tmp_path, data, "generic")
    assert list(m4) == ["arm_dsp"] and list(generic) == ["portable"]
    return {"dsp": m4["arm_dsp"], "portable": generic["portable"]}


def test_pointwise_and_windowed_conv_paths(tmp_path):
    pointwise = kernels(tmp_path, conv2d_model(input_shape=(1, 5, 7, 13), out_channels=7, kernel=(1, 1), seed=1))
    windowed = kernels(tmp_path, conv2d_model(input_shape=(1, 8, 9, 3), out_channels=5, seed=3))
    assert pointwise["dsp"].startswith("matrix product: 13-value pixel rows")
    assert windowed["dsp"].startswith("im2col: 27-value windows") and "staged as int8" in windowed["dsp"]
    assert windowed["portable"].startswith("window walk")


def test_depthwise_paths(tmp_path):
    strip = kernels(tmp_path, depthwise_model(input_shape=(1, 6, 7, 6), seed=2))
    shared = kernels(tmp_path, depthwise_model(input_shape=(1, 6, 7, 2), depth_multiplier=4, seed=9))
    walked = kernels(tmp_path, depthwise_model(input_shape=(1, 6, 7, 2), depth_multiplier=4, kernel=(3, 5), seed=9))
    assert strip["dsp"].startswith("zero-padded int16 strip") and "3x3 in assembly" in strip["dsp"]
    assert strip["dsp"].endswith("a partial last block of 2 channel(s), its lanes gathered")
    assert shared["dsp"].startswith("zero-padded int16 strip") and "one input channel in all 4 lanes" in shared["dsp"]
    assert shared["portable"] == "window walk, 4 outputs of one input channel a pass"
    assert walked["dsp"] == walked["portable"] == "window walk, 4 outputs of one input channel a pass"
