"""samples/mobilenet_v2's model (micro_relay.examples.mobilenet_v2, MobileNetV2 0.75 at 224x224 int8) without a
Zephyr workspace: the test vectors the sample checks its device against equal TFLite Micro's outputs, the
schedule micro_relay_model() gives it on a 192 KB board (176 KB for the model) runs in patches, and that build
equals TFLite Micro on the emulated Cortex-M4 (the Arm DSP kernels on patch-cut geometries).
tests/zephyr/test_zephyr_mobilenet_v2.py builds and runs the sample itself."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest

from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.examples.write_model import main as write_model
from support.tflm_oracle import tflm_run

MODEL_RAM = 192 * 1024 - 16 * 1024  # the sample: CONFIG_MICRO_RELAY_RAM_BUDGET_KB=192, APP_RAM 16K
TFLM_ARENA = 16 << 20  # TFLite Micro's interpreter plans MobileNetV2 layer by layer: over a megabyte


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mobilenet_v2")
    assert write_model(["mobilenet_v2", str(folder / "mbv2.tflite"), "--vectors", str(folder / "v.h"),
                        "--name", "mbv2"]) == 0
    return folder / "mbv2.tflite", (folder / "v.h").read_text()


def _array(header: str, name: str) -> np.ndarray:
    body = re.search(rf"{name}\[\d+\]\[\d+\] = \{{\s*\{{([^}}]*)\}}", header).group(1)
    return np.array([int(v) for v in body.split(",") if v.strip()])


def test_vectors_are_tflite_micros_outputs(written):
    path, header = written
    image = _array(header, "vectors_mbv2_input").astype(np.int8).reshape(1, 224, 224, 3)
    (expected,) = tflm_run(path.read_bytes(), [image], 1, TFLM_ARENA)
    assert _array(header, "vectors_mbv2_expected").tolist() == expected.ravel().astype(int).tolist()


def test_the_sample_budget_takes_patches(written):
    """1,214,664 B layer by layer, 207,208 B row by row in one patch: over 176 KB; in patches within it."""
    path, _ = written
    model = compile_graph(prepare_graph(path), "mbv2", path.name, target="cortex-m4", ram_budget=MODEL_RAM)
    rows = json.loads(model.files["mbv2.plan.json"])["row_by_row"]
    assert model.plan.arena_bytes <= MODEL_RAM < rows["arena_layer_by_layer"]
    assert any(run["patches"] != [1, 1] for run in rows["runs"])
    assert 0 < rows["extra_macs"] <= rows["model_macs"] // 10
    one_patch = compile_graph(prepare_graph(path), "mbv2", path.name, target="cortex-m4", max_recompute=0)
    assert one_patch.plan.arena_bytes > MODEL_RAM


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None or shutil.which("qemu-system-arm") is None,
                    reason="needs arm-none-eabi-gcc and qemu-system-arm")
def test_the_sample_schedule_equals_tflite_micro_on_the_cortex_m4(written):
    from micro_relay.bench.measure import bench_graph
    from support.cortex_m_cases import BOARD, assert_bit_exact

    path, _ = written
    model = path.read_bytes()
    result = bench_graph(prepare_graph(path), "mbv2", str(path), BOARD, runs=1, seed=1, ram_budget=MODEL_RAM,
                         oracle=lambda inputs: tflm_run(model, inputs, 1, TFLM_ARENA))
    assert_bit_exact(result)
    assert result["arena_bytes"] <= MODEL_RAM
