"""The shape family (micro_relay.examples.shape_family): every model compiles and equals TFLite Micro.

The family is what benchmarks/shape_family.py measures; a model whose numbers are wrong would make its
instructions/MAC meaningless, so each is checked bit for bit here: the reference interpreter for all, the
compiled C built on the host for a few that cover conv, depthwise, 1-D and FC-only.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.examples.shape_family import FAMILY, build_family_model, family_macs, family_names
from micro_relay.reference import run as reference_run
from support.model_check import assert_matches, compare_with_tflm, random_inputs
from support.tflm_oracle import tflm_run

# One per kernel family worth building on the host: odd-channel conv, MobileNetV2 with ADD, 1-D, FC-only.
HOST_BUILT = ("conv_odd_channels_3_5_7_12", "mbv2_ir_residual_11x11x27", "conv1d_time_w_99x10", "fc_odd_250_27_5")
MAC_BUDGET = 20_000_000  # each model must run in a few seconds under QEMU


def test_family_has_at_least_24_distinct_names():
    names = family_names()
    assert len(names) >= 24
    assert len(set(names)) == len(names)


def test_generator_is_deterministic_and_models_differ():
    models = {name: build_family_model(name) for name in family_names()}
    assert all(build_family_model(name) == data for name, data in models.items())
    assert len(set(models.values())) == len(models)


def test_family_stays_small():
    assert all(family_macs(name) < MAC_BUDGET for name in family_names())


def test_family_covers_the_shapes_it_claims():
    layers = [(spec, layer) for spec in FAMILY for layer in spec.layers]
    assert any(layer.kind == "add" for _, layer in layers)
    assert any(layer.stride != (1, 1) for _, layer in layers)
    assert any(layer.dilation != (1, 1) for _, layer in layers)
    assert any(layer.kind == "depthwise" and layer.channels > 1 for _, layer in layers)
    assert any(spec.fc_only for spec in FAMILY)
    assert {spec.input_shape[-1] for spec in FAMILY if len(spec.input_shape) == 4} >= {1, 3}
    assert any(len(spec.input_shape) == 4 and 1 in spec.input_shape[1:3] for spec in FAMILY)
    assert any(layer.kind == "conv" and layer.channels % 4 for _, layer in layers)


@pytest.mark.parametrize("name", family_names())
def test_compiles_and_reference_equals_tflite_micro(name, tmp_path):
    data = build_family_model(name)
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(data)
    graph = prepare_graph(path)
    compile_graph(graph, "family", path.name)
    inputs = random_inputs(graph, np.random.default_rng(0))
    ours = reference_run(graph, [x.copy() for x in inputs])
    theirs = tflm_run(data, [x.copy() for x in inputs], len(graph.outputs))
    for got, want in zip(ours, theirs):
        np.testing.assert_array_equal(np.asarray(got).reshape(-1), np.asarray(want).reshape(-1))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no host C compiler")
@pytest.mark.parametrize("name", HOST_BUILT)
def test_compiled_c_on_the_host_equals_tflite_micro(name, tmp_path):
    assert_matches(compare_with_tflm(build_family_model(name), seeds=(0, 1), workdir=tmp_path, name="family"))
