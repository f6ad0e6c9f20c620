"""Both kernel paths of a DSP core, on the shared models, on the same Cortex-M4 (mps2-an386): the C compiled for
--target cortex-m4 (the Arm DSP kernels and their scratch) and for --target generic (the portable kernels, which
every build keeps), each compared byte for byte with TFLite Micro's interpreter on the same inputs. The portable
run plans no DSP scratch, so its arena is never larger; it is also slower, which the ratio shows in the output of
`make bench`, not here. Skipped without the shared models or the Arm tools."""

from __future__ import annotations

import pytest

from conftest import shared_model
from micro_relay.bench.measure import bench_model
from support.cortex_m_cases import BOARD, tflite_micro

MODELS = ("mlcommons_tiny/kws_ref_model.tflite", "mlcommons_tiny/ad01_int8.tflite",
          "mlcommons_tiny/pretrainedResnet_quant.tflite", "tflite_micro/person_detect.tflite",
          "tflite_micro/micro_speech_quantized.tflite", "tflite_micro/hello_world_int8.tflite")


@pytest.fixture(scope="module")
def runs(arm_tools):
    cache = {}

    def run(relative, target):
        if (relative, target) not in cache:
            path = shared_model(relative)
            cache[(relative, target)] = bench_model(path, BOARD, runs=1, seed=1, target=target,
                                                    oracle=tflite_micro(path.read_bytes()))
        return cache[(relative, target)]

    return run


@pytest.mark.parametrize("target", ["cortex-m4", "generic"])
@pytest.mark.parametrize("relative", MODELS, ids=lambda r: r.split("/")[1].removesuffix(".tflite"))
def test_path_equals_tflite_micro_on_cortex_m4(runs, relative, target):
    result = runs(relative, target)
    assert result["target"] == target and result["compared_with"] == "tflite_micro"
    assert result["outputs_match"] is True and result["max_abs_diff"] == 0, result


@pytest.mark.parametrize("relative", MODELS, ids=lambda r: r.split("/")[1].removesuffix(".tflite"))
def test_portable_arena_is_never_larger(runs, relative):
    assert runs(relative, "generic")["arena_bytes"] <= runs(relative, "cortex-m4")["arena_bytes"]
