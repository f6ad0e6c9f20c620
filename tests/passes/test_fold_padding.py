"""The padding fold (passes/fold_padding.py) on TensorFlow's explicit PAD in front of a convolution or a pool.

    x ─ pad ─ conv / depthwise / max pool ─► y   becomes   x ─ conv / depthwise / max pool (more padding) ─► y

The oracle is TFLite Micro running the model as written, PAD and all: the compiled C of the folded graph must
equal it bit for bit (float within 1e-5), on the host (portable kernels) and on the Cortex-M4 under QEMU (the
Arm DSP kernels). The cases that must not fold are checked to keep their PAD and still to agree."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from support.cortex_m_cases import assert_bit_exact, bench_cases
from support.model_check import assert_matches, compare_with_tflm
from support.tflite_padded_models import mobilenet_v2_head, padded_model

from micro_relay.compiler import compile_graph
from micro_relay.frontend.tflite import read_tflite
from micro_relay.lower import lower
from micro_relay.passes import run_pipeline
from micro_relay.passes.fold_padding import fold_padding
from micro_relay.passes.pipeline import DEFAULT_PIPELINE

WITHOUT_FOLD = tuple(step for step in DEFAULT_PIPELINE if step[0] != "fold_padding")
FLOAT_LOWEST = -float(np.finfo(np.float32).max)

FOLDED = {
    "int8 conv 3x3/2, TensorFlow's PAD (0, 1) then VALID": dict(),
    "int8 depthwise 3x3/2, PAD (0, 1) then VALID": dict(consumer="DEPTHWISE_CONV_2D"),
    "int8 conv, asymmetric PAD (2, 1) x (0, 3)": dict(hw_pads=((2, 1), (0, 3)), stride=(1, 1)),
    "int8 conv, PAD beyond the window (4 > k - 1) on every side": dict(hw_pads=((4, 4), (4, 5)), stride=(1, 2)),
    "int8 depthwise 5x5, PAD beyond the window": dict(consumer="DEPTHWISE_CONV_2D", kernel=(5, 5),
                                                        hw_pads=((6, 5), (5, 7)), stride=(1, 1)),
    "int8 depthwise SAME after a PAD (the paddings add)": dict(consumer="DEPTHWISE_CONV_2D", padding="SAME",
                                                                hw_pads=((0, 1), (0, 1)), stride=(1, 1)),
    "int8 conv SAME after an asymmetric PAD": dict(padding="SAME", hw_pads=((1, 0), (0, 1)), stride=(1, 1)),
    "int8 conv, PADV2 whose constant is the zero point": dict(constant=-7, activation="RELU6"),
    "float32 conv 3x3/2": dict(dtype="float32"),
    "float32 depthwise, PAD beyond the window": dict(dtype="float32", consumer="DEPTHWISE_CONV_2D",
                                                     hw_pads=((3, 4), (4, 3)), stride=(1, 1)),
    "int8 max pool, PADV2 of -128 (cannot win)": dict(consumer="MAX_POOL_2D", constant=-128, kernel=(2, 2)),
    "int8 max pool, PADV2 of -128, asymmetric": dict(consumer="MAX_POOL_2D", constant=-128, kernel=(3, 3),
                                                    hw_pads=((2, 0), (1, 2)), stride=(1, 1)),
    "float32 max pool, PADV2 of -FLT_MAX": dict(dtype="float32", consumer="MAX_POOL_2D", constant=FLOAT_LOWEST,
                                                kernel=(2, 2)),
}

KEPT = {
    "int8 conv, PADV2 constant other than the zero point": dict(constant=20),
    "int8 max pool, PAD of the zero point (it can win)": dict(consumer="MAX_POOL_2D", kernel=(2, 2)),
    "int8 max pool, a window wholly in the PAD": dict(consumer="MAX_POOL_2D", constant=-128, kernel=(2, 2),
                                                      hw_pads=((3, 0), (0, 0))),
    "int8 avg pool (TFLite Micro counts only in-image taps)": dict(consumer="AVERAGE_POOL_2D", kernel=(2, 2)),
    "float32 avg pool": dict(dtype="float32", consumer="AVERAGE_POOL_2D", kernel=(3, 3), stride=(1, 1)),
    "int8 conv 1x1 (a matrix product unpadded)": dict(kernel=(1, 1), stride=(1, 1)),
    "int8 depthwise 3x3 padded by 2 (past CMSIS-NN's 3x3 path)": dict(consumer="DEPTHWISE_CONV_2D",
                                                                       hw_pads=((2, 2), (2, 2)), stride=(1, 1)),
    "float32 conv, PADV2 of -0.0": dict(dtype="float32", constant=-0.0),
}


def _ops(model: bytes, pipeline=DEFAULT_PIPELINE) -> list[str]:
    return [n.op for n in run_pipeline(read_tflite(model, "padded"), pipeline).nodes]


@pytest.mark.parametrize("case", FOLDED.values(), ids=FOLDED.keys())
def test_folded_pad_matches_tflm_running_the_pad(case):
    model = padded_model(**case)
    assert "nn.pad" in _ops(model, WITHOUT_FOLD)
    assert "nn.pad" not in _ops(model)
    assert_matches(compare_with_tflm(model))


@pytest.mark.parametrize("case", KEPT.values(), ids=KEPT.keys())
def test_pad_that_would_change_results_or_kernels_is_kept(case):
    model = padded_model(**case)
    assert "nn.pad" in _ops(model)
    assert_matches(compare_with_tflm(model))


def test_folded_padding_is_the_sum_of_both():
    """PAD (1, 0) x (0, 1) then SAME 3x3 stride 1 (its own padding 1 on every side): (top, left, bottom, right)
    = (1 + 1, 1 + 0, 1 + 0, 1 + 1)."""
    graph = run_pipeline(read_tflite(padded_model(consumer="CONV_2D", padding="SAME",
                                                  hw_pads=((1, 0), (0, 1)), stride=(1, 1)), "padded"))
    (node,) = graph.nodes
    assert tuple(node.attrs["padding"]) == (2, 1, 1, 2)
    assert node.inputs[0] == graph.inputs[0]


def test_pad_read_twice_or_a_graph_output_is_kept():
    graph = run_pipeline(read_tflite(padded_model(), "padded"), WITHOUT_FOLD)
    padded = next(n for n in graph.nodes if n.op == "nn.pad").outputs[0]
    as_output = replace(graph, outputs=(*graph.outputs, padded))
    assert "nn.pad" in [n.op for n in fold_padding(as_output).nodes]


def test_pad_of_the_channels_is_kept():
    graph = run_pipeline(read_tflite(padded_model(), "padded"), WITHOUT_FOLD)
    index = next(i for i, n in enumerate(graph.nodes) if n.op == "nn.pad")
    pad = graph.nodes[index]
    channels = pad.with_attrs(pad_width=(0, 0, 0, 1, 0, 1, 0, 1))
    nodes = list(graph.nodes)
    nodes[index] = channels
    assert "nn.pad" in [n.op for n in fold_padding(graph.with_nodes(nodes)).nodes]


KERNEL_KEPT = {
    "int8 conv 3x3/2": dict(),
    "int8 depthwise 3x3/2 (the 3x3 strip)": dict(consumer="DEPTHWISE_CONV_2D", input_shape=(1, 17, 17, 8)),
    "int8 depthwise 5x5, asymmetric": dict(consumer="DEPTHWISE_CONV_2D", input_shape=(1, 10, 9, 12), kernel=(5, 5),
                                           hw_pads=((3, 0), (0, 4)), stride=(2, 1)),
    "int8 max pool": dict(consumer="MAX_POOL_2D", constant=-128, kernel=(3, 3), hw_pads=((1, 1), (2, 0))),
}


@pytest.mark.parametrize("target", ["cortex-m4", "generic"])
@pytest.mark.parametrize("case", KERNEL_KEPT.values(), ids=KERNEL_KEPT.keys())
def test_folded_node_keeps_its_kernel_and_entry_point(case, target):
    """The fold changes the node's padding, not which kernel runs it nor its C function."""
    model = padded_model(**case)

    def consumer(pipeline):
        low = lower(run_pipeline(read_tflite(model, "padded"), pipeline), target)
        (node,) = [n for n in low.nodes if n.node.op != "nn.pad"]
        return node.kernel.backend, node.plan.entry, node.plan.scratch_bytes

    assert consumer(DEFAULT_PIPELINE) == consumer(WITHOUT_FOLD)


def _arena(model: bytes, pipeline, target="generic") -> int:
    return compile_graph(run_pipeline(read_tflite(model, "padded"), pipeline), "padded", "padded",
                         target=target).plan.arena_bytes


def test_arena_of_a_stride_2_depthwise_after_a_pad():
    """Named shape "pad then stride-2 depthwise", int8, generic target:

        x 8x8x4 (256 B, rows of 32 B) ─ pad (0,1)x(0,1) ─ p 9x9x4 (324 B, rows of 36 B) ─ dw 3x3/2 ─ y 4x4x4 (64 B)

    Before: while the PAD runs, x and p are live: 256 + 324 = 580 B. The depthwise step holds p and y; output
    row r (16 B) reads p from row 2r on, so y may start 16 B below p (max_delta: min over r of 72r - 16(r+1) =
    -16), 324 + 16 = 340 B. Peak 580 B.
    After: one depthwise over x with padding (0, 0, 1, 1); row r reads x from row 2r (64r) and writes up to
    16(r+1): y starts 16 B below x, 256 + 16 = 272 B."""
    model = padded_model(consumer="DEPTHWISE_CONV_2D", input_shape=(1, 8, 8, 4))
    assert _arena(model, WITHOUT_FOLD) == 580
    assert _arena(model, DEFAULT_PIPELINE) == 272


def test_mobilenet_v2_head_loses_every_pad_and_half_its_arena():
    """Stem and first two stride-2 stages of a MobileNetV2 at 48x48 (tests/support/tflite_padded_models.py): the
    peak was the first PAD (48x48x3 and 49x49x3) or the expanded 24x24x96 and its padded 25x25x96 copy
    (55,296 + 60,000 = 115,296 B). Folded, the peak is the stride-2 depthwise over the 24x24x96 expansion."""
    model = mobilenet_v2_head()
    assert _ops(model).count("nn.pad") == 0 and _ops(model, WITHOUT_FOLD).count("nn.pad") == 3
    assert _arena(model, WITHOUT_FOLD) == 24 * 24 * 96 + 25 * 25 * 96
    assert _arena(model, DEFAULT_PIPELINE) < 24 * 24 * 96 + 12 * 12 * 96 * 2
    assert_matches(compare_with_tflm(model, seeds=(0,)))


ON_M4 = {
    "conv_pad_0_1": dict(),
    "depthwise_pad_0_1": dict(consumer="DEPTHWISE_CONV_2D", input_shape=(1, 17, 17, 8)),
    "depthwise_beyond_window": dict(consumer="DEPTHWISE_CONV_2D", input_shape=(1, 6, 7, 8), kernel=(5, 5),
                                    hw_pads=((5, 4), (4, 6)), stride=(1, 1)),
    "depthwise_5x5_asymmetric": dict(consumer="DEPTHWISE_CONV_2D", input_shape=(1, 10, 9, 12), kernel=(5, 5),
                                     hw_pads=((3, 0), (0, 4)), stride=(2, 1)),
    "conv_beyond_window": dict(input_shape=(1, 5, 6, 8), hw_pads=((4, 4), (3, 5)), stride=(1, 1)),
    "max_pool_lowest": dict(consumer="MAX_POOL_2D", constant=-128, kernel=(3, 3), hw_pads=((1, 1), (2, 0)),
                            stride=(1, 1)),
}


def test_folded_models_match_tflm_on_the_dsp_path_of_cortex_m4(arm_tools, tmp_path):
    models = {name: padded_model(**case) for name, case in ON_M4.items()}
    models["mobilenet_v2_head"] = mobilenet_v2_head(size=32)
    for name, model in models.items():
        assert "nn.pad" not in _ops(model), name
    results = bench_cases(tmp_path, models, target="cortex-m4")
    for name, result in results.items():
        assert result["compared_with"] == "tflite_micro", name
        assert_bit_exact(result)
