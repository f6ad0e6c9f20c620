"""CONFIG_MICRO_RELAY_BACKEND_CMSIS_NN: the keyword-spotting sample built for mps2/an386 (Cortex-M4, CMSIS-NN's
DSP variant from Zephyr's cmsis-nn module) with the CMSIS-NN backend calls CMSIS-NN for its convolutions and
dense layer and still prints that every input matches the reference interpreter's outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zephyr_env import REPO, new_build

BOARD = "mps2/an386"


@pytest.fixture(scope="module")
def cmsis_nn_build(tmp_path_factory):
    build = new_build(REPO / "samples" / "keyword_spotting", BOARD, tmp_path_factory.mktemp("kws-cmsis-nn"))
    modules = Path(build.env["ZEPHYR_BASE"]).parent / "modules"
    if not (modules / "lib" / "cmsis-nn" / "Include" / "arm_nnfunctions.h").is_file():
        pytest.skip("the workspace has no modules/lib/cmsis-nn (west update with cmsis-nn in the allowlist)")
    return build.build(pristine=True, cmake_args=("-DCONFIG_MICRO_RELAY_BACKEND_CMSIS_NN=y",))


def test_generated_model_calls_cmsis_nn(cmsis_nn_build):
    out = cmsis_nn_build.build_dir / "micro_relay" / "kws"
    report = json.loads((out / "kws.plan.json").read_text())
    assert report["kernels"] == "cmsis-nn"
    layers = [n for n in report["nodes"] if n["op"] in ("nn.conv2d", "nn.depthwise_conv2d", "nn.dense")]
    assert layers and all(n["kernel"]["cmsis_nn"].startswith("CMSIS-NN ") for n in layers)
    assert "mr_cmsis_conv2d_s8(" in (out / "kws.c").read_text()
    symbols = (cmsis_nn_build.build_dir / "zephyr" / "zephyr.map").read_text(errors="replace")
    assert "arm_convolve_wrapper_s8" in symbols and "mr_cmsis_conv2d_s8" in symbols


def test_outputs_match_on_qemu(cmsis_nn_build):
    output = cmsis_nn_build.run(r"inputs match the reference")
    line = next(line for line in output.splitlines() if "inputs match the reference" in line)
    passed, total = [int(w) for w in line.split() if w.isdigit()][:2]
    assert passed == total > 0, line
