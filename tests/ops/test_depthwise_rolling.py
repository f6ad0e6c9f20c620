"""nn.depthwise_conv2d's rolling strips (ops/depthwise_conv2d.py): scratch_variants offers the rolling_strips
attribute exactly where the int8 strip kernel can keep rows across output rows (our kernels, the strip path, a
block of 4 channels, no row dilation, stride_h < k_h, two output rows or more, not set already), prepare refuses
it elsewhere, and with it the node takes more scratch (which is what makes the kernel roll: it has no entry point
of its own) and says so in the plan report. The kernel itself runs on Cortex-M4 in
tests/bench/test_dsp_depthwise_rolling.py.
"""

from __future__ import annotations

import dataclasses

import pytest

from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.errors import CompileError
from micro_relay.ir.registry import get_op
from micro_relay.ops._cmsis_nn import kernel_backend
from micro_relay.ops.depthwise_conv2d import dsp_scratch_bytes
from support.tflite_models import depthwise_model

OP = "nn.depthwise_conv2d"
ROLLING = ({"rolling_strips": 1},)

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
    # no strip: multiplier 2 walks the window; 3 channels make no block of 4
    "3x3_m2": (dict(input_shape=(1, 7, 6, 3), depth_multiplier=2), False),
    "3x3_c3": (dict(input_shape=(1, 7, 6, 3)), False),
    # not int8
    "int16": (dict(dtype="int16", input_shape=(1, 8, 9, 8)), False),
    "float": (dict(dtype="float32", input_shape=(1, 8, 9, 8)), False),
}


def _node(tmp_path, name: str, kwargs: dict):
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(depthwise_model(**kwargs))
    graph = prepare_graph(path)
    (node,) = [n for n in graph.nodes if n.op == OP]
    return graph, node


def _with_attrs(graph, node, **attrs):
    new = node.with_attrs(**attrs)
    return dataclasses.replace(graph, nodes=tuple(new if n is node else n for n in graph.nodes)), new


@pytest.mark.parametrize("name", sorted(CASES))
def test_scratch_variants_offers_rolling_strips_where_they_apply(tmp_path, name):
    kwargs, offered = CASES[name]
    graph, node = _node(tmp_path, name, kwargs)
    op = get_op(OP)
    assert op.scratch_variants(graph, node, op.prepare(graph, node)) == (ROLLING if offered else ())


def test_not_offered_twice_nor_on_cmsis_nn(tmp_path):
    graph, node = _node(tmp_path, "case", CASES["3x3_s1_m1"][0])
    op = get_op(OP)
    with kernel_backend("cmsis-nn"):
        assert op.scratch_variants(graph, node, op.prepare(graph, node)) == ()
    graph, node = _with_attrs(graph, node, rolling_strips=1)
    assert op.scratch_variants(graph, node, op.prepare(graph, node)) == ()


@pytest.mark.parametrize("name", sorted(n for n, (_, offered) in CASES.items() if not offered))
def test_prepare_refuses_rolling_strips_where_not_offered(tmp_path, name):
    graph, node = _node(tmp_path, name, CASES[name][0])
    graph, node = _with_attrs(graph, node, rolling_strips=1)
    with pytest.raises(CompileError, match="rolling_strips"):
        get_op(OP).prepare(graph, node)


@pytest.mark.parametrize("name, entry", [("3x3_s1_m1", "_strip3x3_fast"), ("3x3_leftovers", "_strip3x3"),
                                         ("5x5", "_strip"), ("3x3_m8_s2", "_strip3x3_fast")])
def test_rolling_strips_take_more_scratch_and_the_same_entry_point(tmp_path, name, entry):
    """One strip per chunk and strip fill instead of one: k_h rows of every chunk's span (2 words a pixel) per
    fill; the emitted call names the same entry point as without them (the kernel rolls when the scratch holds
    the strips), with that scratch, and the plan report says rolling strips."""
    graph, node = _node(tmp_path, name, CASES[name][0])
    op = get_op(OP)
    p = op.prepare(graph, node)
    g = p["geometry"]
    plain = op.scratch_bytes(graph, node, p)
    plain_entry = op.entry_point(graph, node, p)
    assert plain == dsp_scratch_bytes(g) and not p["rolling"]
    graph, node = _with_attrs(graph, node, rolling_strips=1)
    p = op.prepare(graph, node)
    fills = g.out_c // 4 if g.filter_c == 1 else g.in_c
    spans = [(min(16, g.out_w - x) - 1) * g.stride_w + (g.k_w - 1) * g.dil_w + 1 for x in range(0, g.out_w, 16)]
    assert op.scratch_bytes(graph, node, p) == plain + 8 * g.k_h * (fills * sum(spans) - spans[0])
    assert op.scratch_bytes(graph, node, p) == dsp_scratch_bytes(g, rolling=True)
    assert "rolling strips" in op.kernel_path(graph, node, p)["dsp"]
    assert op.entry_point(graph, node, p) == plain_entry == f"mr_depthwise_conv2d_s8{entry}"
    model = compile_graph(graph, "case_model", "test")
    source = "".join(model.files.values())
    assert f"mr_depthwise_conv2d_s8{entry}(" in source
    assert "_rolling" not in source
    assert f".scratch_bytes = {op.scratch_bytes(graph, node, p)}" in source


def test_cmsis_nn_ignores_rolling_strips(tmp_path):
    """A node on CMSIS-NN keeps CMSIS-NN's buffer and call whatever the attribute says."""
    graph, node = _node(tmp_path, "case", CASES["3x3_s1_m1"][0])
    op = get_op(OP)
    with kernel_backend("cmsis-nn"):
        before = op.scratch_bytes(graph, node, op.prepare(graph, node))
        graph, node = _with_attrs(graph, node, rolling_strips=1)
        assert op.scratch_bytes(graph, node, op.prepare(graph, node)) == before


def test_no_strip_for_windows_over_255_rows():
    """The strip kernel counts a strip's rows in bytes (dw_roll, plain or rolling): taller windows walk."""
    from micro_relay.ops._conv_common import Geometry
    from micro_relay.ops.depthwise_conv2d import uses_strip
    tall = Geometry(1, 256, 4, 4, 1, 2, 4, 256, 3, 1, 1, 1, 1, 1, 0, 0)
    assert not uses_strip(tall) and dsp_scratch_bytes(tall) == 0
    assert uses_strip(Geometry(1, 8, 8, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 0, 0))
