"""The cost model (target/cost_model.py) against QEMU's instruction counts on mps2-an386 (Cortex-M4, DSP path).

Tolerances: on the layers it was fitted to the model is within 14% (benchmarks/fit_cost_model.py prints each),
the shared models' layers are shapes it never saw, and kernels change under it; 30% per layer of at least 100,000
instructions (smaller ones are dominated by fixed costs that matter to nobody) and 15% over all estimated
layers of a model (errors of different paths partly cancel) still rank the paths, and fail when a kernel change
has made the fitted coefficients stale: then re-run `python3 benchmarks/fit_cost_model.py`.
"""

from __future__ import annotations

import pytest

from conftest import shared_model
from micro_relay.bench.measure import bench_model
from micro_relay.compiler import prepare_graph
from micro_relay.kernels.arm_dsp import depthwise_conv2d
from micro_relay.lower import lower
from micro_relay.plan.room import use_room
from micro_relay.target import get_target
from support.tflite_models import depthwise_model

SHARED = ("mlcommons_tiny/kws_ref_model.tflite", "mlcommons_tiny/ad01_int8.tflite",
          "mlcommons_tiny/pretrainedResnet_quant.tflite", "tflite_micro/person_detect.tflite")
LAYER_TOLERANCE = 0.30
LAYER_FLOOR = 100_000  # instructions
MODEL_TOLERANCE = 0.15

# Depthwise layers whose two candidate paths differ clearly
CHOICES = {
    "multiplier1_5x5": depthwise_model(input_shape=(1, 12, 12, 16), kernel=(5, 5), in_zp=-3, seed=5),
    "multiplier8_10x8_stride2": depthwise_model(input_shape=(1, 49, 40, 1), kernel=(10, 8), depth_multiplier=8,
                                                stride=(2, 2), in_zp=4, seed=6),
}


def estimated_and_measured(path) -> list[tuple[str, int, int]]:
    """(layer, estimate, measured instructions) of every layer the cost model estimates, with the variants the
    compiler gives it (plan/room.py), on a run whose outputs match the reference interpreter (an estimate of a
    kernel that computes something else would prove nothing)."""
    lowered, _ = use_room(lower(prepare_graph(path), "cortex-m4"))
    result = bench_model(path, "mps2-an386", runs=1, profile=True, row_by_row="never")  # the layers, one by one
    assert result["target"] == "cortex-m4" and result["outputs_match"], result
    rows = []
    for layer in result["layers"]:
        low = lowered.nodes[layer["node"]]
        node = low.node
        estimate = low.kernel.estimate(lowered.target, lowered.graph, node, low.params, low.plan)
        if estimate:
            rows.append((f"{layer['node']} {node.op} {estimate['path']}", estimate["instructions"],
                         layer["instructions"]))
    return rows


@pytest.mark.parametrize("relative", SHARED)
def test_estimates_match_measured_layers(arm_tools, relative):
    rows = estimated_and_measured(shared_model(relative))
    assert rows
    far = [(name, estimate, measured) for name, estimate, measured in rows
           if measured >= LAYER_FLOOR and abs(estimate / measured - 1) > LAYER_TOLERANCE]
    assert not far, far
    estimated, measured = sum(r[1] for r in rows), sum(r[2] for r in rows)
    assert abs(estimated / measured - 1) <= MODEL_TOLERANCE, (estimated, measured)


@pytest.mark.parametrize("name", sorted(CHOICES))
def test_cheaper_estimated_depthwise_path_is_measured_faster(arm_tools, tmp_path, monkeypatch, name):
    """The path the cost model estimates cheaper runs fewer instructions (whether the compiler takes it also
    depends on its scratch: kernels/arm_dsp/depthwise_conv2d.uses_strip)."""
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(CHOICES[name])
    low = lower(prepare_graph(path), "cortex-m4").nodes[0]
    estimate = low.kernel.estimate(get_target("cortex-m4"), None, low.node, low.params, low.plan)
    costs = sorted(estimate["alternatives"].values())
    assert costs[1] > 1.2 * costs[0], estimate  # a clear difference, or the shape tests nothing
    cheaper = min(estimate["alternatives"], key=estimate["alternatives"].get).startswith("depthwise_strip")
    measured = {}
    for strip in (cheaper, not cheaper):
        monkeypatch.setattr(depthwise_conv2d, "uses_strip", lambda g, strip=strip: strip)
        measured[strip] = bench_model(path, "mps2-an386", runs=1)
        assert measured[strip]["outputs_match"]
    assert measured[cheaper]["instructions"] < measured[not cheaper]["instructions"], (estimate, measured)
