"""--kernels cmsis-nn without the library: what the compiler plans and emits (these run everywhere, CI too)."""

from __future__ import annotations

import json

import pytest

from micro_relay.cli import main
from micro_relay.compiler import compile_graph, write_output
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.ir.registry import get_op
from micro_relay.kernels.cmsis_nn._adapters import conv2d_buffer_bytes, depthwise_conv2d_buffer_bytes
from micro_relay.passes import run_pipeline
from micro_relay.plan.buffers import scratch_name
from support.tflite_models import conv2d_model, depthwise_model


def _graph(model_bytes):
    return run_pipeline(read_tflite(model_bytes, "test"))


def test_default_backend_is_unchanged():
    graph = _graph(conv2d_model(input_shape=(1, 8, 8, 8), out_channels=8))
    assert compile_graph(graph, "m", "t").files == compile_graph(graph, "m", "t", kernels="micro-relay").files


def test_cmsis_nn_plans_its_buffer_and_no_overlap():
    """An im2col conv on CMSIS-NN: the planner reserves exactly the CMSIS-NN buffer, the emitter passes it,
    and the output does not overlap the input (CMSIS-NN keeps no access-order contract)."""
    graph = _graph(depthwise_model(input_shape=(1, 12, 12, 8), kernel=(5, 5)))
    ours = compile_graph(graph, "m", "t")
    theirs = compile_graph(graph, "m", "t", kernels="cmsis-nn")
    index = next(i for i, n in enumerate(graph.nodes) if n.op == "nn.depthwise_conv2d")
    node = graph.nodes[index]
    g = get_op(node.op).prepare(graph, node)["geometry"]
    scratch = next(b for b in theirs.plan.buffers if b.name == scratch_name(index))
    assert scratch.size >= depthwise_conv2d_buffer_bytes(g) > 0
    assert theirs.adapters == ("depthwise_conv2d",) and ours.adapters == ()
    source = theirs.files["m.c"]
    assert "mr_cmsis_depthwise_conv2d_s8(" in source and '#include "micro_relay_cmsis_nn.h"' in source
    assert f".scratch_bytes = {depthwise_conv2d_buffer_bytes(g)}" in source
    report = json.loads(theirs.files["m.plan.json"])
    assert report["kernels"] == "cmsis-nn" and report["overlaps"] == []
    assert json.loads(ours.files["m.plan.json"])["overlaps"], "our kernel declares a lagged overlap here"


def test_pointwise_conv_needs_no_scratch_and_passes_null():
    graph = _graph(conv2d_model(input_shape=(1, 6, 6, 8), out_channels=8, kernel=(1, 1)))
    node = next(n for n in graph.nodes if n.op == "nn.conv2d")
    assert conv2d_buffer_bytes(get_op(node.op).prepare(graph, node)["geometry"]) == 0
    index = graph.nodes.index(node)
    assert any(b.name == scratch_name(index)  # our DSP kernel has one
               for b in compile_graph(graph, "m", "t", target="cortex-m4").plan.buffers)
    assert not any(b.name == scratch_name(index) for b in compile_graph(graph, "m", "t").plan.buffers)  # portable
    model = compile_graph(graph, "m", "t", kernels="cmsis-nn")
    assert not any(b.name == scratch_name(index) for b in model.plan.buffers)
    call = next(line for line in model.files["m.c"].splitlines() if "mr_cmsis_conv2d_s8(" in line)
    assert call.strip().startswith("MR_TRY(mr_cmsis_conv2d_s8(") and call.strip().endswith(", NULL));")


@pytest.mark.parametrize("build, reason", [
    (lambda: conv2d_model(input_shape=(1, 6, 6, 4), out_channels=4, bias=None), "no bias"),
    (lambda: conv2d_model(input_shape=(1, 6, 6, 4), out_channels=4, groups=2), "grouped"),
    (lambda: conv2d_model(dtype="int16", input_shape=(1, 5, 5, 3), out_channels=4), "int8 only"),
])
def test_fallbacks_keep_our_kernel_and_say_why(build, reason):
    graph = _graph(build())
    model = compile_graph(graph, "m", "t", kernels="cmsis-nn")
    assert model.adapters == () and "mr_cmsis_" not in model.files["m.c"]
    node = next(n for n in json.loads(model.files["m.plan.json"])["nodes"] if n["op"] == "nn.conv2d")
    assert reason in node["kernel"]["cmsis_nn"] and "our kernel runs" in node["kernel"]["cmsis_nn"]


def test_write_output_copies_adapters(tmp_path):
    model = compile_graph(_graph(conv2d_model()), "m", "t", kernels="cmsis-nn")
    write_output(model, tmp_path)
    assert (tmp_path / "mr_cmsis_conv2d.c").is_file() and (tmp_path / "micro_relay_cmsis_nn.h").is_file()
    assert (tmp_path / "mr_conv2d.c").is_file()  # the fallback kernel and its params struct stay available


def test_unknown_backend_is_an_error():
    with pytest.raises(CompileError, match="--kernels"):
        compile_graph(_graph(conv2d_model()), "m", "t", kernels="tvm")


def test_cli_compile_option(tmp_path, capsys):
    model = tmp_path / "conv.tflite"
    model.write_bytes(conv2d_model())
    assert main(["compile", str(model), "-o", str(tmp_path / "out"), "--kernels", "cmsis-nn"]) == 0
    assert "mr_cmsis_conv2d_s8(" in (tmp_path / "out" / "conv.c").read_text()
    with pytest.raises(SystemExit):
        main(["compile", str(model), "-o", str(tmp_path / "out"), "--kernels", "nope"])


def test_bench_without_library_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CMSIS_NN_PATH", raising=False)
    model = tmp_path / "conv.tflite"
    model.write_bytes(conv2d_model())
    assert main(["bench", str(model), "--kernels", "cmsis-nn"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "CMSIS_NN_PATH" in err[0]
    assert main(["bench", str(model), "--kernels", "cmsis-nn", "--cmsis-nn", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "not a CMSIS-NN checkout" in err and str(tmp_path) in err
