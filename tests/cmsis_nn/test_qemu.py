"""On mps2-an386 (Cortex-M4: CMSIS-NN's DSP variant), every shared int8 model benched with --kernels cmsis-nn
gives the reference interpreter's outputs (bit-exact with TFLite Micro, tests/conformance), with its
convolutions and dense layers on CMSIS-NN. Needs arm-none-eabi-gcc and qemu-system-arm."""

from __future__ import annotations

import shutil

import pytest

from micro_relay.bench import bench_model

MODELS = ("mlcommons_tiny/kws_ref_model.tflite", "tflite_micro/person_detect.tflite",
          "mlcommons_tiny/pretrainedResnet_quant.tflite", "mlcommons_tiny/ad01_int8.tflite")


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.rsplit("/", 1)[-1].removesuffix(".tflite"))
def test_shared_model_on_mps2_an386(cmsis_nn_root, shared_models, model):
    if not (shutil.which("arm-none-eabi-gcc") and shutil.which("qemu-system-arm")):
        pytest.skip("arm-none-eabi-gcc or qemu-system-arm is not on PATH")
    path = shared_models / model
    if not path.is_file():
        pytest.skip(f"{model} is absent")
    result = bench_model(path, "mps2-an386", runs=1, kernels="cmsis-nn", cmsis_nn=cmsis_nn_root)
    assert result["kernels"] == "cmsis-nn" and "libcmsis-nn" in result["libraries"]
    assert result["outputs_match"] is True and result["max_abs_diff"] == 0.0
