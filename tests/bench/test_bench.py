"""`micro-relay bench` on the project's own sine model, on every QEMU board: one JSON object on stdout,
outputs equal to the reference interpreter's, and size and cost fields that add up."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bench.test_timing import ERROR_BOUND

from micro_relay.bench import MACHINES
from micro_relay.cli import main
from micro_relay.compiler import prepare_graph
from micro_relay.ir.registry import get_op


def bench(capsys, *args):
    code = main(["bench", *[str(a) for a in args]])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code, err, fragment):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], err


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_sine_on_each_machine(arm_tools, sine_model, capsys, machine, tmp_path):
    code, out, err = bench(capsys, sine_model, "--machine", machine, "--keep", tmp_path, "--seed", 1)
    assert code == 0, err
    assert len(out.strip().splitlines()) == 1
    result = json.loads(out)
    graph = prepare_graph(sine_model)
    assert result["machine"] == machine
    assert result["outputs_match"] is True and result["max_abs_diff"] == 0
    assert result["macs"] == sum(get_op(n.op).macs(graph, n) for n in graph.nodes) == 288
    # Three dense layers of 16 units: thousands of instructions, the same on every run up to the timer's
    # quantization (tests/bench/test_timing.py: the start edge and end spins, within its ERROR_BOUND).
    assert 1_000 < result["instructions"] < 20_000
    assert result["instructions"] == min(result["instructions_per_run"])
    assert max(result["instructions_per_run"]) - result["instructions"] <= ERROR_BOUND
    assert result["instructions_per_mac"] == pytest.approx(result["instructions"] / 288, abs=1e-3)
    assert 0 < result["runtime_code_bytes"] < result["model_flash_bytes"] < result["flash_bytes"] < 16_384
    assert result["arena_bytes"] <= result["model_ram_bytes"] <= result["ram_bytes"] < 1_024
    assert 0 < result["stack_bytes"] < 4_096
    assert (tmp_path / "runner.elf").is_file() and (tmp_path / "model" / "sine.c").is_file()


def test_profile_covers_every_layer(arm_tools, sine_model, capsys):
    code, out, err = bench(capsys, sine_model, "--machine", "mps2-an386", "--profile", "--runs", 1)
    assert code == 0, err
    result = json.loads(out)
    layers = result["layers"]
    assert [(layer["step"], layer["op"]) for layer in layers] == [(k, "nn.dense") for k in range(3)]
    assert sorted(layer["node"] for layer in layers) == [0, 1, 2]
    assert sum(layer["macs"] for layer in layers) == result["macs"]
    # Each mark costs a few dozen instructions and ticks are 40 instructions long.
    assert sum(layer["instructions"] for layer in layers) == pytest.approx(result["instructions"], abs=400)


def test_unknown_machine(sine_model, capsys):
    code, out, err = bench(capsys, sine_model, "--machine", "mps2-an999")
    assert out == ""
    assert_one_line_error(code, err, "unknown machine 'mps2-an999'")


def test_missing_tools_is_a_one_line_error(sine_model, tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))
    result = subprocess.run([sys.executable, "-m", "micro_relay", "bench", str(sine_model)],
                            capture_output=True, text=True, env=env)
    assert_one_line_error(result.returncode, result.stderr, "not found on PATH")
    assert result.stdout == ""


def test_libraries_count_only_kept_sections(tmp_path):
    """A member pulled in for a function --gc-sections dropped is not reported; one with kept code is."""
    from micro_relay.bench.report import linked_libraries

    lib = "/usr/lib/gcc/arm-none-eabi/12/thumb/v7-m/nofp"
    (tmp_path / "runner.map").write_text(
        "Archive member included to satisfy reference by file (symbol)\n\n"
        f"{lib}/libm.a(lib_a-wf_exp.o)\n                              obj/mr_softmax.o (expf)\n\n"
        "Discarded input sections\n\n"
        f" .text.expf     0x00000000       0x40 {lib}/libm.a(lib_a-wf_exp.o)\n\n"
        "Linker script and memory map\n\n"
        f" .text          0x00000100      0x168 {lib}/libgcc.a(_arm_mulsf3.o)\n"
        f" .debug_info    0x00000000       0x3c {lib}/libm.a(lib_a-wf_exp.o)\n"
        " .text.__aeabi_ldivmod\n"
        f"                0x00000268       0x30 {lib}/libgcc.a(_aeabi_ldivmod.o)\n")
    assert linked_libraries(tmp_path / "runner.map") == ["libgcc"]
