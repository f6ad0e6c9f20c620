"""The planner's targets on the shared reference models, against TFLite Micro's arena on a 64-bit host
(figures from the models' README): at most 0.75x on kws_ref_model and person_detect, 0.9x on ResNet-8
(whose residual blocks keep three 16 KiB tensors live), never above TFLite Micro. With lagged overlap (a convolution's or pool's output over the dead part of
its input, plan/buffers.py step 4) the arenas of kws_ref_model, person_detect and ResNet-8 go below
TFLite Micro's own activation plan (the README's "head" figure, no interpreter overhead), and no arena
grows past the one recorded here, for the generic target (portable kernels, no DSP scratch) and for Cortex-M4
(the Arm DSP kernels and the windows they gather in scratch). Skipped when the models folder is absent."""

from __future__ import annotations

import pytest

from conftest import shared_model
from micro_relay.compiler import prepare_graph
from micro_relay.lower import lower
from micro_relay.plan import plan_memory
from micro_relay.plan.check import check_plan
from micro_relay.plan.report import plan_report
from micro_relay.plan.room import use_room

TARGETS = {  # model: (TFLite Micro arena bytes, largest allowed ratio)
    "mlcommons_tiny/kws_ref_model.tflite": (24_272, 0.75),
    "tflite_micro/person_detect.tflite": (85_264, 0.75),
    "mlcommons_tiny/pretrainedResnet_quant.tflite": (55_984, 0.9),
    "mlcommons_tiny/pretrainedResnet.tflite": (203_376, 1.0),
    "mlcommons_tiny/ad01_int8.tflite": (3_984, 1.0),
    "tflite_micro/micro_speech_quantized.tflite": (7_584, 1.0),
    "tflite_micro/simple_add_model.tflite": (50_176, 1.0),
    "tflite_micro/hello_world_int8.tflite": (1_504, 1.0),
    "tflite_micro/hello_world_float.tflite": (1_536, 1.0),
}


M4_ARENAS = {  # model: (arena bytes at most, lower bound) as planned with lagged overlap for cortex-m4
    "mlcommons_tiny/kws_ref_model.tflite": (14_720, 11_536),  # 16_000 without overlap
    "tflite_micro/person_detect.tflite": (39_024, 39_024),  # 55_296; includes the depthwise DSP scratch (block headers + strip)
    "mlcommons_tiny/pretrainedResnet_quant.tflite": (38_400, 38_400),  # 49_152; conv DSP tiles of up to 8 KB
    "mlcommons_tiny/pretrainedResnet.tflite": (135_168, 135_168),  # 196_608
    "mlcommons_tiny/ad01_int8.tflite": (768, 768),
    "tflite_micro/micro_speech_quantized.tflite": (4_200, 4_200),  # 5_960
    "tflite_micro/simple_add_model.tflite": (32_768, 32_768),
    "tflite_micro/hello_world_int8.tflite": (32, 32),
    "tflite_micro/hello_world_float.tflite": (128, 128),
}

GENERIC_ARENAS = {  # the same for the generic target: no DSP scratch, the portable kernels' access order
    "mlcommons_tiny/kws_ref_model.tflite": (14_656, 9_024),
    "tflite_micro/person_detect.tflite": (37_376, 37_248),
    "mlcommons_tiny/pretrainedResnet_quant.tflite": (33_792, 33_792),
    "mlcommons_tiny/pretrainedResnet.tflite": (135_168, 135_168),
    "mlcommons_tiny/ad01_int8.tflite": (768, 768),
    "tflite_micro/micro_speech_quantized.tflite": (4_200, 4_200),
    "tflite_micro/simple_add_model.tflite": (32_768, 32_768),
    "tflite_micro/hello_world_int8.tflite": (32, 32),
    "tflite_micro/hello_world_float.tflite": (128, 128),
}

ARENAS = {"cortex-m4": M4_ARENAS, "generic": GENERIC_ARENAS}

HEAD = {  # TFLite Micro's activation plan alone (the README's "head" figure)
    "mlcommons_tiny/kws_ref_model.tflite": 16_000,
    "tflite_micro/person_detect.tflite": 55_296,
    "mlcommons_tiny/pretrainedResnet_quant.tflite": 49_152,
}


def model_id(relative: str) -> str:
    return relative.split("/")[1].removesuffix(".tflite")


@pytest.mark.parametrize("target", sorted(ARENAS))
@pytest.mark.parametrize("relative", sorted(TARGETS), ids=model_id)
def test_arena_against_tflite_micro(relative, target):
    plan = plan_memory(lower(prepare_graph(shared_model(relative)), target))
    tflm, ratio = TARGETS[relative]
    check_plan(list(plan.buffers), plan.offsets, plan.arena_bytes)
    assert plan.lower_bound <= plan.arena_bytes <= ratio * tflm
    arena, bound = ARENAS[target][relative]
    assert plan.arena_bytes <= arena and plan.lower_bound == bound


@pytest.mark.parametrize("relative", sorted(TARGETS), ids=model_id)
def test_no_dsp_scratch_without_dsp(relative):
    """A core without the DSP extension (cortex-m3) runs every node on a portable kernel and plans what the
    generic target plans: no DSP scratch, an arena never above Cortex-M4's."""
    graph = prepare_graph(shared_model(relative))
    m3, generic, m4 = (lower(graph, t) for t in ("cortex-m3", "generic", "cortex-m4"))
    assert {n.kernel.backend for n in m3.nodes} == {"portable"}
    assert m3.scratch() == generic.scratch()
    assert plan_memory(m3).arena_bytes == plan_memory(generic).arena_bytes <= plan_memory(m4).arena_bytes


@pytest.mark.parametrize("target", sorted(ARENAS))
@pytest.mark.parametrize("relative", sorted(HEAD), ids=model_id)
def test_arena_below_tflite_micro_head(relative, target):
    """Below TFLite Micro's own activation plan, thanks to outputs overlapping their dying inputs: the plan
    report lists the overlapping pairs and the bytes they share."""
    lowered = lower(prepare_graph(shared_model(relative)), target)
    plan = plan_memory(lowered)
    assert plan.arena_bytes < HEAD[relative]
    overlaps = plan_report(model_id(relative), lowered, plan, relative)["overlaps"]
    assert sum(o["shared_bytes"] > 0 for o in overlaps) >= 1
    assert all(o["offset_difference"] <= o["delta"] for o in overlaps if o["shared_bytes"])


ROOMY = {  # model: nodes at least that run a faster variant in the room the arena has anyway (plan/room.py)
    "tflite_micro/person_detect.tflite": 20,
    "mlcommons_tiny/pretrainedResnet_quant.tflite": 6,
    "mlcommons_tiny/kws_ref_model.tflite": 1,
}


@pytest.mark.parametrize("relative", sorted(M4_ARENAS), ids=model_id)
def test_room_never_grows_the_arena(relative):
    """Variants (of the Cortex-M4 kernels) are kept only where the model's own arena holds them: planned again in
    full, the arena is the same or smaller. (How long choosing takes is measured by the compile-cost benchmark,
    not asserted here.)"""
    lowered = lower(prepare_graph(shared_model(relative)), "cortex-m4")
    roomy, choices = use_room(lowered)
    assert plan_memory(roomy).arena_bytes <= plan_memory(lowered).arena_bytes
    assert sum(c.variant is not None for c in choices) >= ROOMY.get(relative, 0)
