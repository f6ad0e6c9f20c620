"""Chains of convolutions run row by row (schedule/chains.py): which layers form chains, the arenas of named graph
shapes worked out by hand, the choice `auto` makes (smaller arenas only, instructions weighed, a RAM budget
met), and every chained model bit-exact with TFLite Micro on the host (portable kernels) and on the emulated
Cortex-M4 (Arm DSP kernels).

MICRO_RELAY_ROWS_ALL=1 runs every convolutional model of the shape family on the Cortex-M4 (CI runs six).
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from conftest import shared_model
from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.examples.shape_family import FAMILY, build_family_model
from micro_relay.frontend.tflite import read_tflite
from micro_relay.lower import lower
from micro_relay.passes import run_pipeline
from micro_relay.plan.memory_plan import plan_memory
from micro_relay.schedule.chains import find_chains, fuse_rows, fused
from support.model_check import assert_matches, compare_with_tflm
from support.shared_models import CONFORMANCE_MODELS, model_id

CONV_FAMILY = [spec.name for spec in FAMILY if not spec.fc_only]
ON_M4 = CONV_FAMILY if os.environ.get("MICRO_RELAY_ROWS_ALL") else [
    "mbv1_block_s2_15x15x12", "mbv2_ir_residual_11x11x27", "mbv2_ir_s2_15x15x12", "dscnn_kws_c20",
    "conv1d_time_h_99x10", "dilated_dw3x3_d2_17x17x12"]


def _graph(name, tmp_path):
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(build_family_model(name))
    return prepare_graph(path)


def _fused(model):
    return [n for n in model.lowered.nodes if n.node.op == "fused.rows"]


def _one_row_a_call(graph):
    """Every chain fused, one row a call (band 1): the fewest rows held. (lowered, memory plan)"""
    lowered = lower(graph)
    rows_lowered = fused(lowered, find_chains(lowered))
    return rows_lowered, plan_memory(rows_lowered)


def test_an_inverted_residual_is_one_chain_and_its_add_reads_the_block_input(tmp_path):
    """expand 1x1, depthwise 3x3, project 1x1, then ADD of the block's input: the three convolutions are one
    chain (the expanded tensors are read once each); the ADD is not in it."""
    graph = _graph("mbv2_ir_residual_12x12x16", tmp_path)
    ops = [n.op for n in graph.nodes]
    assert ops[:4] == ["nn.conv2d", "nn.depthwise_conv2d", "nn.conv2d", "add"]
    assert find_chains(lower(graph)) == [(0, 1, 2)]


def test_inverted_residual_with_its_add_worked_arena(tmp_path):
    """12x12x16 in and out (2,304 B each), expanded to 96 channels. Row by row the expanded tensors (13,824 B
    each) are 3 rows of 1,152 B (for the depthwise) and 1 row (for the project): 4,608 B of rolling buffers, and
    the walk's row counters, 16 B a layer: 4,656 B of scratch. The block input is read again by the ADD, so the
    output cannot overlap it: 2,304 + 2,304 + 4,656 = 9,264 B."""
    graph = _graph("mbv2_ir_residual_12x12x16", tmp_path)
    lowered, plan = _one_row_a_call(graph)
    (chain,) = [n for n in lowered.nodes if n.node.op == "fused.rows"]
    assert chain.plan.scratch_bytes == 4656
    assert plan.arena_bytes == 9264
    assert plan.arena_bytes < compile_graph(graph, "ir", "ir", row_by_row="never").plan.arena_bytes


def test_inverted_residual_without_add_worked_arena(tmp_path):
    """15x15x12 (2,700 B, 180 B a row) expanded to 72, depthwise stride 2 (pad 1) to 8x8, project to 20 (1,280 B,
    160 B a row). Rolling buffers: 3 expanded rows of 1,080 B and 1 depthwise row of 576 B: 3,816 B, with the walk's
    counters (3 x 16 B) 3,864 B of scratch. Step 0 writes output row 0 having read from input row 0; step r >= 1
    reads from row 2r and writes up to 160 (r + 1): the output may start 160 B below the input (the block input is
    read by nothing else): 160 + 2,700 + 3,864."""
    lowered, plan = _one_row_a_call(_graph("mbv2_ir_s2_15x15x12", tmp_path))
    (chain,) = [n for n in lowered.nodes if n.node.op == "fused.rows"]
    assert (chain.plan.scratch_bytes, chain.plan.overlap_delta) == (3864, -160)
    assert plan.arena_bytes == 160 + 2700 + 3864


def test_inverted_residual_in_two_column_patches_worked_arena(tmp_path):
    """The 12x12x16 block with its ADD in a 1x2 grid: output columns [0, 6) and [6, 12). The depthwise of patch 0
    reads expanded columns [0, 7), patch 1's [5, 12): 7 columns each, so the rolling buffers are 3 expanded rows
    of 7 x 96 (2,016 B) and 1 depthwise row of 6 x 96 (576 B), narrower than the 12 columns of one patch (4,608
    B). With them: the walk's counters (3 x 16 B), the cut geometries (3 x 64 B), the first layer's gathered row
    (1 x 7 x 16 = 112 B) and the last layer's row before it is written out (6 x 16 = 96 B): 3,040 B of scratch,
    arena 2,304 + 2,304 + 3,040 = 7,648 B (9,264 B in one patch). Expanded columns 5 and 6 are made by both patches: 2 x 12 rows x 96 channels
    x 16 = 36,864 MACs, 6.5% of the block's 566,784, within the default 10%: auto takes the grid."""
    graph = _graph("mbv2_ir_residual_12x12x16", tmp_path)
    model = compile_graph(graph, "ir", "ir", target="generic")
    (chain,) = _fused(model)
    assert chain.plan.patches == (1, 2)
    assert chain.plan.scratch_bytes == 3040 and model.plan.arena_bytes == 7648
    assert chain.plan.recompute_macs == 36_864
    report = json.loads(model.files["ir.plan.json"])["row_by_row"]
    assert [run["patches"] for run in report["runs"]] == [[1, 2]] and report["extra_macs"] == 36_864
    one_patch = compile_graph(graph, "ir", "ir", target="generic", max_recompute=0)
    assert _fused(one_patch)[0].plan.patches == (1, 1) and one_patch.plan.arena_bytes == 9264


def test_a_ram_budget_takes_patches_only_when_one_patch_does_not_fit(tmp_path):
    graph = _graph("mbv2_ir_residual_12x12x16", tmp_path)
    fits = compile_graph(graph, "ir", "ir", target="generic", ram_budget=9264)
    assert _fused(fits)[0].plan.patches == (1, 1) and fits.plan.arena_bytes == 9264
    tight = compile_graph(graph, "ir", "ir", target="generic", ram_budget=8000)
    assert _fused(tight)[0].plan.patches != (1, 1) and tight.plan.arena_bytes <= 8000


@pytest.mark.parametrize("value", ["nan", "-1", "2000"])
def test_max_recompute_out_of_range_is_one_line(value, tmp_path, capsys):
    from micro_relay.cli import main

    model = tmp_path / "ir.tflite"
    model.write_bytes(build_family_model("mbv2_ir_residual_12x12x16"))
    assert main(["compile", str(model), "-o", str(tmp_path / "out"), "--max-recompute", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--max-recompute" in err[0] and not (tmp_path / "out").exists()


MOBILENET_V2_BOUND = 176 * 1024  # the target arena for MobileNetV2-1.0-224 int8 on a 192 KB Cortex-M4


@pytest.mark.parametrize("target", ["generic", "cortex-m4"])
def test_mobilenet_v2_224_fits_176_kb_in_patches(target):
    """MobileNetV2 1.0 at 224x224 int8 (seeded weights, support/tflite_padded_models.py): 2,451,840 B with padded
    copies, 1,214,664 B layer by layer, 210,792 B row by row in one patch (its 150,528 B input is whole while the
    first chain runs). In patches the first chains' rolling buffers are as narrow as a patch and patch rows let
    the output overwrite the input rows already done with: within 176 KB, recomputing at most 10% of the
    network's MACs."""
    from support.tflite_padded_models import mobilenet_v2

    graph = run_pipeline(read_tflite(mobilenet_v2(224), "MobileNetV2"))
    model = compile_graph(graph, "mbv2", "mbv2", target=target)
    choice = json.loads(model.files["mbv2.plan.json"])["row_by_row"]
    assert model.plan.arena_bytes <= MOBILENET_V2_BOUND
    assert any(run["patches"] != [1, 1] for run in choice["runs"])
    assert 0 < choice["extra_macs"] <= choice["model_macs"] // 10


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no host C compiler")
def test_mobilenet_v2_224_in_patches_equals_tflite_micro_on_the_host(tmp_path):
    from support.tflite_padded_models import mobilenet_v2

    result = compare_with_tflm(mobilenet_v2(224), seeds=(0,), workdir=tmp_path, name="mbv2", tflm_arena=8 << 20,
                               reference=False)  # the reference interpreter takes minutes on 300 M MACs
    assert result.arena_bytes <= MOBILENET_V2_BOUND
    assert_matches(result)


@pytest.mark.parametrize("relative", CONFORMANCE_MODELS, ids=[model_id(m) for m in CONFORMANCE_MODELS])
@pytest.mark.parametrize("target", ["generic", "cortex-m4"])
def test_no_shared_model_arena_grows(relative, target):
    graph = prepare_graph(shared_model(relative))
    auto = compile_graph(graph, "m", "m", target=target)
    assert auto.plan.arena_bytes <= compile_graph(graph, "m", "m", target=target, row_by_row="never").plan.arena_bytes


@pytest.mark.parametrize("target", ["generic", "cortex-m4"])
def test_person_detect_and_kws_reach_their_targets(target):
    """The issue's targets: person_detect <= 19.5 KB (39,024 B layer by layer), kws_ref_model <= 11 KB
    (14,656 B) on the portable kernels; on the Cortex-M4 the DSP kernels' own scratch keeps kws at 14,656 B."""
    person = compile_graph(prepare_graph(shared_model("tflite_micro/person_detect.tflite")), "p", "p", target=target)
    assert person.plan.arena_bytes <= 19_968
    kws = compile_graph(prepare_graph(shared_model("mlcommons_tiny/kws_ref_model.tflite")), "k", "k", target=target)
    if target == "generic":
        assert kws.plan.arena_bytes <= 11 * 1024
        assert [n.node.attrs["members"][0].op for n in _fused(kws)] == ["nn.depthwise_conv2d"] * 4


def test_kws_meets_an_11_kb_budget_on_the_cortex_m4_with_portable_kernels_at_its_peak():
    """On the Cortex-M4 the DSP kernels' scratch (2,896 B a depthwise, 2,304 B a pointwise) keeps kws_ref_model
    at 14,656 B, rows or not. With --ram-budget 11K the layers of its chains take the portable kernels (no
    scratch; schedule/lean.py) and run row by row: 10,560 B, as on the portable target; the first convolution,
    off the peak, keeps its DSP kernel, and the plan says why the others left theirs."""
    graph = prepare_graph(shared_model("mlcommons_tiny/kws_ref_model.tflite"))
    model = compile_graph(graph, "k", "k", target="cortex-m4", ram_budget=11 * 1024)
    assert model.plan.arena_bytes <= 11 * 1024
    assert model.lowered.nodes[0].kernel.backend == "arm_dsp"
    members = [m for n in _fused(model) for m in n.params["layers"]]
    assert len(members) == 8 and all(m.kernel.backend == "portable" and m.fallback for m in members)
    assert "portable kernels" in json.loads(model.files["k.plan.json"])["row_by_row"]["why"]


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None or shutil.which("qemu-system-arm") is None,
                    reason="needs arm-none-eabi-gcc and qemu-system-arm")
def test_kws_within_11_kb_equals_tflite_micro_on_the_cortex_m4(tmp_path):
    from support.cortex_m_cases import assert_bit_exact, bench_cases

    data = shared_model("mlcommons_tiny/kws_ref_model.tflite").read_bytes()
    (result,) = bench_cases(tmp_path, {"kws": data}, ram_budget=11 * 1024).values()
    assert_bit_exact(result)
    assert result["arena_bytes"] <= 11 * 1024


def test_a_ram_budget_keeps_layer_by_layer_when_it_fits():
    graph = prepare_graph(shared_model("tflite_micro/person_detect.tflite"))
    roomy = compile_graph(graph, "p", "p", ram_budget=40 * 1024)
    assert not _fused(roomy) and roomy.plan.arena_bytes <= 40 * 1024
    tight = compile_graph(graph, "p", "p", ram_budget=20 * 1024)
    assert _fused(tight) and tight.plan.arena_bytes <= 20 * 1024


def test_a_small_saving_is_not_bought_with_many_instructions(tmp_path):
    """A 1-D model over H (99 rows of one pixel): row by row saves 8% of its arena on the Cortex-M4 but calls
    each kernel once a row (the cost model: several times the instructions): auto keeps it layer by layer."""
    lowered = lower(_graph("conv1d_time_h_99x10", tmp_path), "cortex-m4")
    result, choice = fuse_rows(lowered)
    assert result is lowered and not choice.runs
    assert "more instructions" in choice.why


def test_unknown_mode_is_refused(tmp_path):
    from micro_relay.errors import CompileError

    with pytest.raises(CompileError, match="row-by-row mode 'sometimes'"):
        fuse_rows(lower(_graph("dscnn_kws_c20", tmp_path)), mode="sometimes")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no host C compiler")
@pytest.mark.parametrize("patches", [None, (2, 2), (4, 16)], ids=["one-patch", "2x2", "4x16"])
@pytest.mark.parametrize("name", CONV_FAMILY)
def test_every_chain_of_the_shape_family_equals_tflite_micro_on_the_host(name, patches, tmp_path):
    """Every chain of each model row by row ("always"): with its widest band in one patch, or in a grid of
    patches (as many as each chain's output has rows and columns, up to the grid's), the portable kernels."""
    result = compare_with_tflm(build_family_model(name), seeds=(0, 1), workdir=tmp_path, name="family",
                               row_by_row="always", patches=patches)
    assert_matches(result)


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None or shutil.which("qemu-system-arm") is None,
                    reason="needs arm-none-eabi-gcc and qemu-system-arm")
@pytest.mark.parametrize("band", ["always", "auto", "patches"])
@pytest.mark.parametrize("name", ON_M4)
def test_chains_equal_tflite_micro_on_the_cortex_m4(name, band, tmp_path):
    """The Arm DSP kernels (strips, tiles, assembly) on cut geometries, under QEMU mps2-an386: every chain with
    its widest band, the default's choice, and every chain in a grid of up to 4x16 patches (cut in rows and
    columns, pad_left and pad_top where each patch's windows start)."""
    from support.cortex_m_cases import assert_bit_exact, bench_cases

    options = {"row_by_row": "always", "patches": (4, 16)} if band == "patches" else {"row_by_row": band}
    (result,) = bench_cases(tmp_path, {name: build_family_model(name)}, **options).values()
    assert_bit_exact(result)


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None or shutil.which("qemu-system-arm") is None,
                    reason="needs arm-none-eabi-gcc and qemu-system-arm")
def test_person_detect_row_by_row_equals_tflite_micro_on_the_cortex_m4(tmp_path):
    from support.cortex_m_cases import assert_bit_exact, bench_cases

    data = shared_model("tflite_micro/person_detect.tflite").read_bytes()
    (result,) = bench_cases(tmp_path, {"person_detect": data}).values()
    assert_bit_exact(result)
    assert result["arena_bytes"] <= 19_968
