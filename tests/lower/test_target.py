"""The target is an input of the compile (target/, lower/): it decides which kernels run and what they plan.

Named graph: streaming_conv_3x3x64, one step of a streaming keyword spotter's convolution: the last 3 frames of
10 x 64 int8 features, 3x3 VALID -> 1 x 8 x 64 (1,920 B in, 512 B out). TFLite Micro plans 2,432 B of
activations for it (its "head", read from its own interpreter). The Arm DSP kernel gathers 3x3x64 windows as
int16 into scratch: 2 weight-and-window slots of 2,304 B per pixel pair, 4 pixels a tile by default plus one slot
for the filters (dsp_scratch_bytes: 3 x 2,304 = 6,912 B), live with both tensors: 9,344 B on Cortex-M4. A core
without the DSP extension plans none of it: the two tensors only, 2,432 B, at TFLite Micro's head.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from micro_relay.compiler import compile_graph
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite.reader import read_tflite
from micro_relay.kernels.arm_dsp.conv2d import dsp_scratch_bytes
from micro_relay.lower import lower
from micro_relay.passes import run_pipeline
from micro_relay.plan import plan_memory
from micro_relay.target import DEFAULT_TARGET, TARGETS, get_target, target_for_core
from support.tflite_models import conv2d_model, fully_connected_model


def streaming_conv_3x3x64() -> bytes:
    return conv2d_model(input_shape=(1, 3, 10, 64), out_channels=64, padding="VALID", seed=5)


def _graph(model: bytes):
    return run_pipeline(read_tflite(model, "test"))


def test_no_dsp_scratch_without_the_dsp_extension():
    graph = _graph(streaming_conv_3x3x64())
    m3, m4 = lower(graph, "cortex-m3"), lower(graph, "cortex-m4")
    assert m3.nodes[0].kernel.backend == "portable" and m3.scratch() == {}
    assert m4.nodes[0].kernel.backend == "arm_dsp"
    assert m4.scratch() == {0: dsp_scratch_bytes(m4.nodes[0].params["geometry"])} == {0: 6912}
    assert plan_memory(m3).arena_bytes == 2432
    assert plan_memory(m4).arena_bytes == 9344


def test_the_streaming_model_fits_tflite_micros_head_on_cortex_m3():
    """TFLite Micro's own activation plan is the external figure (tflite-micro's print_allocations)."""
    pytest.importorskip("tflite_micro")
    from support.tflm_oracle import tflm_arena

    model = streaming_conv_3x3x64()
    head = tflm_arena(model)["head"]
    for target in ("cortex-m0plus", "cortex-m3", "generic"):
        assert compile_graph(_graph(model), "m", "t", target=target).plan.arena_bytes <= head, target


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_kernels_follow_the_targets_features(target):
    """DSP cores run int8 conv and dense on the Arm DSP kernels, every other core on the portable ones; float
    always runs portable."""
    dsp = get_target(target).dsp
    for model in (streaming_conv_3x3x64(), fully_connected_model()):
        backends = {n.node.op: n.kernel.backend for n in lower(_graph(model), target).nodes}
        assert backends.get("nn.conv2d", backends.get("nn.dense")) == ("arm_dsp" if dsp else "portable")
    floats = lower(_graph(conv2d_model(dtype="float32")), target)
    assert {n.kernel.backend for n in floats.nodes} == {"portable"}


def test_generic_is_the_default_and_emits_the_portable_entry():
    model = compile_graph(_graph(streaming_conv_3x3x64()), "m", "t")
    report = json.loads(model.files["m.plan.json"])
    assert DEFAULT_TARGET == "generic" and report["target"] == "generic" and model.target.name == "generic"
    assert list(report["nodes"][0]["kernel"]) == ["portable"]
    call = next(line for line in model.files["m.c"].splitlines() if "mr_conv2d_s8" in line)
    assert "MR_TRY(mr_conv2d_s8_portable(" in call and call.endswith(", NULL));")


def test_cortex_m4_emits_the_dsp_entry_with_its_scratch():
    model = compile_graph(_graph(streaming_conv_3x3x64()), "m", "t", target="cortex-m4")
    assert ".scratch_bytes = 6912" in model.files["m.c"]
    assert json.loads(model.files["m.plan.json"])["target"] == "cortex-m4"


def test_unknown_target_is_one_line_naming_the_choices():
    with pytest.raises(CompileError, match=r"unknown target 'cortex-m9' \(choose from generic, host"):
        compile_graph(_graph(fully_connected_model()), "m", "t", target="cortex-m9")


@pytest.mark.parametrize("core, target", [("Cortex-M4F", "cortex-m4"), ("Cortex-M3", "cortex-m3"),
                                          ("-mcpu=cortex-m7", "cortex-m7"), ("cortex-m0+", "cortex-m0plus"),
                                          ("Cortex-M33", "cortex-m33"), ("riscv32", "generic")])
def test_target_for_core(core, target):
    assert target_for_core(core).name == target


def test_cli_target_option(tmp_path):
    path = tmp_path / "s.tflite"
    path.write_bytes(streaming_conv_3x3x64())
    for target, arena in (("cortex-m3", 2432), ("cortex-m4", 9344)):
        out = tmp_path / target
        subprocess.run([sys.executable, "-m", "micro_relay", "compile", str(path), "-o", str(out), "--target", target],
                       check=True, capture_output=True)
        assert json.loads((out / "s.plan.json").read_text())["arena_bytes"] == arena
    bad = subprocess.run([sys.executable, "-m", "micro_relay", "compile", str(path), "-o", str(tmp_path / "x"),
                          "--target", "m4"], capture_output=True, text=True)
    assert bad.returncode == 2 and "invalid choice: 'm4'" in bad.stderr and not (tmp_path / "x").exists()
