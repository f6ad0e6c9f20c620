"""The Arm DSP depthwise kernel's rolling strips (kernels/arm_dsp/depthwise_conv2d.py): its variants offer the
`rolling` option exactly where the int8 strip kernel can keep rows across output rows (the strip path, no row
dilation, stride_h < k_h, two output rows or more, not set already), planning refuses it
elsewhere, and with it the node takes more scratch (which is what makes the kernel roll: it has no entry point
of its own) and says so in the plan report. The kernel itself runs on Cortex-M4 in
tests/kernels/arm_dsp/test_depthwise_rolling.py.
"""

from __future__ import annotations

import pytest

from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.errors import CompileError
from micro_relay.kernels.arm_dsp.depthwise_conv2d import dsp_scratch_bytes, uses_strip
from micro_relay.lower import lower
from micro_relay.ops._conv_common import Geometry
from support.tflite_models import depthwise_model

pytestmark = pytest.mark.usefixtures("strip_always")  # these cases test the strip kernel itself

OP = "nn.depthwise_conv2d"
ROLLING = ({"rolling": True},)

# name: (kwargs of depthwise_model, whether the variant is offered)
CASES = {
    "3x3_s1_m1": (dict(input_shape=(1, 8, 20, 8)), True),
    "3x3_s2_m1": (dict(input_shape=(1, 9, 9, 8), stride=(2, 2)), True),
    "3x3_s1x2": (dict(input_shape=(1, 8, 9, 8), stride=(1, 2)), True),
    "3x3_leftovers": (dict(input_shape=(1, 6, 7, 6)), True),
    "3x3_m4": (dict(input_shape=(1, 6, 7, 2), depth_multiplier=4), True),
    "3x3_m8_s2": (dict(input_shape=(1, 9, 10, 1), depth_multiplier=8, stride=(2, 2)), True),
    "5x5": (dict(input_shape=(1, 9, 10, 4), kernel=(5, 5)), True),
    "3x1": (dict(input_shape=(1, 8, 20, 8), kernel=(3, 1)), True),
    "no_bias": (dict(input_shape=(1, 6, 7, 8), bias=None), True),
    # nothing read again by the next output row
    "3x3_s3": (dict(input_shape=(1, 9, 9, 8), stride=(3, 1)), False),
    "1x3": (dict(input_shape=(1, 8, 20, 8), kernel=(1, 3)), False),
    "2x2_s2": (dict(input_shape=(1, 8, 8, 8), kernel=(2, 2), stride=(2, 2)), False),
    "one_output_row": (dict(input_shape=(2, 3, 8, 8), padding="VALID"), False),
    # row dilation
    "3x3_dil_h2": (dict(input_shape=(1, 9, 8, 4), dilation=(2, 1)), False),
    # gathered lanes roll too: multiplier 2, and 3 channels (one partial block)
    "3x3_m2": (dict(input_shape=(1, 7, 6, 3), depth_multiplier=2), True),
    "3x3_c3": (dict(input_shape=(1, 7, 6, 3)), True),
    # not int8
    "int16": (dict(dtype="int16", input_shape=(1, 8, 9, 8)), False),
    "float": (dict(dtype="float32", input_shape=(1, 8, 9, 8)), False),
}


def _lowered(tmp_path, name: str, kwargs: dict, backend: str = "micro-relay", **options):
    """The model's one depthwise node lowered for cortex-m4 (with kernel options), and the lowering."""
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(depthwise_model(**kwargs))
    graph = prepare_graph(path)
    (index,) = [i for i, n in enumerate(graph.nodes) if n.op == OP]
    lowered = lower(graph, "cortex-m4", backend, {index: options} if options else None)
    return lowered, lowered.nodes[index]


def _variants(lowered, node):
    return node.kernel.variants(lowered.target, lowered.graph, node.node, node.params, node.plan)


@pytest.mark.parametrize("name", sorted(CASES))
def test_variants_offer_rolling_strips_where_they_apply(tmp_path, name):
    kwargs, offered = CASES[name]
    assert _variants(*_lowered(tmp_path, name, kwargs)) == (ROLLING if offered else ())


def test_not_offered_twice_nor_on_cmsis_nn(tmp_path):
    lowered, node = _lowered(tmp_path, "case", CASES["3x3_s1_m1"][0], "cmsis-nn")
    assert node.kernel.backend == "cmsis_nn" and _variants(lowered, node) == ()
    assert _variants(*_lowered(tmp_path, "case", CASES["3x3_s1_m1"][0], rolling=True)) == ()


@pytest.mark.parametrize("name", sorted(n for n, (kwargs, offered) in CASES.items()
                                        if not offered and kwargs.get("dtype", "int8") == "int8"))
def test_planning_refuses_rolling_strips_where_not_offered(tmp_path, name):
    with pytest.raises(CompileError, match="rolling strips"):
        _lowered(tmp_path, name, CASES[name][0], rolling=True)


@pytest.mark.parametrize("name", ["int16", "float"])
def test_other_dtypes_run_the_portable_kernel_which_has_no_rolling_option(tmp_path, name):
    lowered, node = _lowered(tmp_path, name, CASES[name][0])
    assert node.kernel.backend == "portable" and node.plan.scratch_bytes == 0
    with pytest.raises(CompileError, match="rolling"):
        _lowered(tmp_path, name, CASES[name][0], rolling=True)


@pytest.mark.parametrize("name, entry", [("3x3_s1_m1", "_strip3x3_fast"), ("3x3_leftovers", "_strip3x3"),
                                         ("5x5", "_strip"), ("3x3_m8_s2", "_strip3x3_fast")])
def test_rolling_strips_take_more_scratch_and_the_same_entry_point(tmp_path, name, entry):
    """One strip per chunk and strip fill instead of one: k_h rows of every chunk's span (2 words a pixel) per
    fill; the emitted call names the same entry point as without them (the kernel rolls when the scratch holds
    the strips), with that scratch, and the plan report says rolling strips."""
    lowered, plain = _lowered(tmp_path, name, CASES[name][0])
    g = plain.params["geometry"]
    assert plain.plan.scratch_bytes == dsp_scratch_bytes(g) and not plain.plan.rolling
    rolled_lowering, rolled = _lowered(tmp_path, name, CASES[name][0], rolling=True)
    fills = g.in_c if g.filter_c % 4 == 0 else -(-g.out_c // 4)  # a block a fill, the partial one too
    spans = [(min(16, g.out_w - x) - 1) * g.stride_w + (g.k_w - 1) * g.dil_w + 1 for x in range(0, g.out_w, 16)]
    assert rolled.plan.scratch_bytes == plain.plan.scratch_bytes + 8 * g.k_h * (fills * sum(spans) - spans[0])
    assert rolled.plan.scratch_bytes == dsp_scratch_bytes(g, rolling=True)
    assert "rolling strips" in rolled.kernel.report(lowered.graph, rolled.node, rolled.params, rolled.plan)
    assert rolled.plan.entry == plain.plan.entry == f"mr_depthwise_conv2d_s8{entry}"
    index = lowered.graph.nodes.index(plain.node)
    model = compile_graph(lowered.graph, "case_model", "test", target="cortex-m4",
                          kernel_options={index: {"rolling": True}})
    source = "".join(model.files.values())
    assert f"mr_depthwise_conv2d_s8{entry}(" in source
    assert "_rolling" not in source
    assert f".scratch_bytes = {rolled.plan.scratch_bytes}" in source


def test_cmsis_nn_has_no_rolling_option(tmp_path):
    """A node on CMSIS-NN keeps CMSIS-NN's buffer and call; the option is the DSP kernel's alone."""
    lowered, node = _lowered(tmp_path, "case", CASES["3x3_s1_m1"][0], "cmsis-nn")
    assert node.plan.adapters == ("depthwise_conv2d",)
    with pytest.raises(CompileError, match="rolling"):
        _lowered(tmp_path, "case", CASES["3x3_s1_m1"][0], "cmsis-nn", rolling=True)


def test_no_strip_for_windows_over_255_rows():
    """The strip kernel counts a strip's rows in bytes (dw_roll, plain or rolling): taller windows walk."""
    tall = Geometry(1, 256, 4, 4, 1, 2, 4, 256, 3, 1, 1, 1, 1, 1, 0, 0)
    assert not uses_strip(tall) and dsp_scratch_bytes(tall) == 0
    assert uses_strip(Geometry(1, 8, 8, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 0, 0))
