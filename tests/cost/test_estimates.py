"""The cost model (target/cost_model.py) as the compiler uses it for a Cortex-M4 target: every estimate grows with the layer's MACs, the
depthwise path the compiler emits is the cheaper estimate (3x3 undilated always keeps the assembly strip), and
the plan report carries each layer's estimate and their total."""

from __future__ import annotations

import json

import pytest

from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.lower import lower
from support.tflite_models import conv2d_model, depthwise_model, fully_connected_model

ESTIMATED_OPS = ("nn.conv2d", "nn.depthwise_conv2d", "nn.dense")

# name: (smaller layer, the same layer with more MACs)
GROWING = {
    "im2col_3x3x16_more_channels": (conv2d_model(input_shape=(1, 16, 16, 16), out_channels=16),
                                    conv2d_model(input_shape=(1, 16, 16, 16), out_channels=32)),
    "im2col_staged_wider_window": (conv2d_model(input_shape=(1, 12, 12, 3), out_channels=8),
                                   conv2d_model(input_shape=(1, 12, 12, 3), out_channels=8, kernel=(5, 5))),
    "pointwise_64_deeper": (conv2d_model(input_shape=(1, 8, 8, 32), out_channels=64, kernel=(1, 1)),
                            conv2d_model(input_shape=(1, 8, 8, 64), out_channels=64, kernel=(1, 1))),
    "pointwise8_more_channels": (conv2d_model(input_shape=(1, 8, 8, 8), out_channels=16, kernel=(1, 1)),
                                 conv2d_model(input_shape=(1, 8, 8, 8), out_channels=32, kernel=(1, 1))),
    "depthwise_3x3_more_channels": (depthwise_model(input_shape=(1, 12, 12, 32)),
                                    depthwise_model(input_shape=(1, 12, 12, 64))),
    "depthwise_5x5_wider_window": (depthwise_model(input_shape=(1, 12, 12, 16), kernel=(5, 5)),
                                   depthwise_model(input_shape=(1, 12, 12, 16), kernel=(7, 7))),
    "depthwise_shared_taller_window": (depthwise_model(input_shape=(1, 20, 16, 1), kernel=(6, 8), depth_multiplier=8),
                                       depthwise_model(input_shape=(1, 20, 16, 1), kernel=(10, 8), depth_multiplier=8)),
    "dense_deeper": (fully_connected_model(input_shape=(1, 64), units=16),
                     fully_connected_model(input_shape=(1, 128), units=16)),
    "dense_more_units": (fully_connected_model(input_shape=(1, 64), units=16),
                         fully_connected_model(input_shape=(1, 64), units=32)),
}

# Depthwise layers with a choice (not 3x3 undilated; multiplier 1 or a multiple of 4)
CHOICES = {
    "multiplier1_5x5": depthwise_model(input_shape=(1, 12, 12, 16), kernel=(5, 5)),
    "multiplier1_3x3_dilated": depthwise_model(input_shape=(1, 16, 16, 8), dilation=(2, 2)),
    "multiplier1_7x1": depthwise_model(input_shape=(1, 24, 12, 8), kernel=(7, 1)),
    "multiplier8_10x8_stride2": depthwise_model(input_shape=(1, 49, 40, 1), kernel=(10, 8), depth_multiplier=8,
                                                stride=(2, 2)),
    "multiplier4_3x5": depthwise_model(input_shape=(1, 6, 7, 2), kernel=(3, 5), depth_multiplier=4),
}

# The strip is estimated cheaper and still not taken: its scratch adds a larger share of the layer's bytes than
# the share of instructions it saves (4,584 B beside 6,668 B for micro_speech's layer; a 6x7x2 input).
SCRATCH_OUTWEIGHS = {"multiplier8_10x8_stride2", "multiplier4_3x5"}

THREE_BY_THREE = {
    "multiplier1": depthwise_model(input_shape=(1, 12, 12, 32)),
    "multiplier4": depthwise_model(input_shape=(1, 12, 12, 2), depth_multiplier=4),
    "multiplier1_stride2_tail": depthwise_model(input_shape=(1, 9, 9, 6), stride=(2, 2)),
}


def compiled(tmp_path, data: bytes):
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    model = compile_graph(prepare_graph(path), "m", str(path), target="cortex-m4")
    return model, json.loads(model.files["m.plan.json"])


def layer_costs(tmp_path, data: bytes) -> dict[str, int]:
    """Every candidate path's estimate for the model's single layer."""
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    low = lower(prepare_graph(path), "cortex-m4")
    node = low.nodes[0]
    estimate = node.kernel.estimate(low.target, low.graph, node.node, node.params, node.plan)
    return estimate.get("alternatives", {estimate["path"]: estimate["instructions"]})


@pytest.mark.parametrize("name", sorted(GROWING))
def test_estimate_grows_with_macs(tmp_path, name):
    small, large = (layer_costs(tmp_path, data) for data in GROWING[name])
    assert small.keys() == large.keys()
    for path in small:
        assert 0 < small[path] < large[path], (path, small[path], large[path])


@pytest.mark.parametrize("name", sorted(CHOICES))
def test_depthwise_takes_the_strip_only_when_cheaper(tmp_path, name):
    """The walk when the strip is estimated slower; the strip, when cheaper, unless its scratch outweighs what it
    saves (kernels/arm_dsp/depthwise_conv2d.uses_strip: micro_speech's layer)."""
    model, report = compiled(tmp_path, CHOICES[name])
    estimate = report["nodes"][0]["estimate"]
    alternatives = estimate["alternatives"]
    assert len(alternatives) == 2
    cheaper = min(alternatives, key=alternatives.get)
    assert estimate["path"] == cheaper or estimate["path"] != "depthwise_strip"
    assert (estimate["path"] == cheaper) == (name not in SCRATCH_OUTWEIGHS)
    assert estimate["instructions"] == alternatives[estimate["path"]]
    strip = estimate["path"] == "depthwise_strip"
    assert ("mr_depthwise_conv2d_s8_strip(" in model.files["m.c"]) == strip
    assert report["nodes"][0]["kernel"]["arm_dsp"].startswith("zero-padded int16 strip") == strip


@pytest.mark.parametrize("name", sorted(THREE_BY_THREE))
def test_3x3_keeps_the_assembly_strip(tmp_path, name):
    model, report = compiled(tmp_path, THREE_BY_THREE[name])
    estimate = report["nodes"][0]["estimate"]
    assert estimate["path"] == "depthwise_strip3x3" and "alternatives" not in estimate
    assert "mr_depthwise_conv2d_s8_strip3x3" in model.files["m.c"]


@pytest.mark.parametrize("data", [conv2d_model(), depthwise_model(kernel=(5, 5)), fully_connected_model(),
                                  conv2d_model(input_shape=(1, 6, 6, 16), kernel=(1, 1))],
                         ids=["conv_3x3", "depthwise_5x5", "dense", "pointwise"])
def test_report_has_an_estimate_per_layer_and_the_total(tmp_path, data):
    _, report = compiled(tmp_path, data)
    estimated = [n for n in report["nodes"] if n["op"] in ESTIMATED_OPS]
    assert estimated and all(n["estimate"]["instructions"] > 0 and n["estimate"]["path"] for n in estimated)
    assert all("kernel" in n for n in estimated)
    assert report["estimated_instructions"] == sum(n["estimate"]["instructions"] for n in estimated)


def test_float_layers_have_no_estimate(tmp_path):
    _, report = compiled(tmp_path, conv2d_model(dtype="float32"))
    assert "estimate" not in report["nodes"][0]
    assert report["estimated_instructions"] == 0
