"""The generated C: strict-warning clean on the host and on Cortex-M, no allocator, fixed stack frames,
byte-identical across compiles, and the application-provided arena option works."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import shared_model
from support.c_harness import STRICT_FLAGS, build_host_program, run_host_program
from support.shared_models import CONFORMANCE_MODELS, model_id
from micro_relay.compiler import compile_file

ARM_GCC = shutil.which("arm-none-eabi-gcc")
ARM_NM = shutil.which("arm-none-eabi-nm")
ALLOCATORS = {"malloc", "calloc", "realloc", "free", "_malloc_r", "_free_r", "_calloc_r", "_realloc_r"}

CORES = ["cortex-m4", "cortex-m0plus", "cortex-m7"]


@pytest.mark.skipif(ARM_GCC is None or ARM_NM is None, reason="arm-none-eabi-gcc is not installed (apt-get install gcc-arm-none-eabi)")
@pytest.mark.parametrize("relative", CONFORMANCE_MODELS, ids=[model_id(m) for m in CONFORMANCE_MODELS])
def test_builds_for_cortex_m_without_allocator_or_dynamic_stack(tmp_path, relative):
    model = shared_model(relative)
    out = tmp_path / "out"
    compile_file(model, out)
    sources = sorted(out.glob("*.c"))
    for core in CORES:
        objects = []
        for source in sources:
            obj = tmp_path / f"{core}-{source.stem}.o"
            cmd = [ARM_GCC, f"-mcpu={core}", "-mthumb", "-Os", *STRICT_FLAGS, "-fstack-usage", "-I", str(out),
                   "-c", str(source), "-o", str(obj)]
            result = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
            assert result.returncode == 0, f"{core} {source.name}:\n{result.stderr[-3000:]}"
            objects.append(obj)
        undefined = subprocess.run([ARM_NM, "-u", *map(str, objects)], capture_output=True, text=True).stdout.split()
        assert not ALLOCATORS & set(undefined), f"{core}: allocator referenced: {ALLOCATORS & set(undefined)}"
        for usage in tmp_path.glob("*.su"):
            for line in usage.read_text().splitlines():
                assert line.rstrip().endswith("static"), f"non-static stack frame: {line}"
            usage.unlink()


def _compile_in_fresh_process(model: Path, out: Path, hash_seed: str):
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    subprocess.run([sys.executable, "-m", "micro_relay", "compile", str(model), "-o", str(out)], check=True,
                   env=env, capture_output=True)
    return {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("relative", ["mlcommons_tiny/kws_ref_model.tflite", "mlcommons_tiny/pretrainedResnet_quant.tflite"],
                         ids=["kws_ref_model", "pretrainedResnet_quant"])
def test_output_is_byte_identical_across_compiles(tmp_path, relative):
    model = shared_model(relative)
    first = _compile_in_fresh_process(model, tmp_path / "a", "1")
    second = _compile_in_fresh_process(model, tmp_path / "b", "2")
    assert first.keys() == second.keys()
    for name in first:
        assert first[name] == second[name], f"{name} differs between two compiles"


def test_generated_code_mentions_no_allocator(tmp_path):
    out = tmp_path / "out"
    compile_file(shared_model("mlcommons_tiny/kws_ref_model.tflite"), out)
    for source in list(out.glob("*.c")) + list(out.rglob("*.h")):
        text = source.read_text()
        for word in ("malloc(", "calloc(", "realloc(", "free("):
            assert word not in text, f"{source.name} calls {word}"


APP_ARENA = r"""
#include <stdint.h>
#include "hello.h"
uint8_t app_arena[HELLO_ARENA_SIZE] __attribute__((aligned(16), section(".app_ram")));
"""


def test_application_provided_arena_gives_the_same_outputs(tmp_path):
    model = shared_model("tflite_micro/hello_world_int8.tflite")
    own, external = tmp_path / "own", tmp_path / "external"
    compile_file(model, own, name="hello")
    compile_file(model, external, name="hello")
    (external / "app_arena.c").write_text(APP_ARENA)
    samples = [[np.array([[v]], dtype=np.int8)] for v in range(-128, 128, 5)]
    types = [(np.int8, (1, 1))]
    expected = run_host_program(build_host_program(own, "hello"), samples, types)
    exe = build_host_program(external, "hello", extra_flags=("-O2", "-DHELLO_EXTERNAL_ARENA=app_arena"))
    symbols = subprocess.run(["nm", str(exe)], capture_output=True, text=True).stdout
    assert "app_arena" in symbols and "hello_arena" not in symbols
    got = run_host_program(exe, samples, types)
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a[0], b[0])


def test_arena_section_option_places_the_arena(tmp_path):
    model = shared_model("tflite_micro/hello_world_int8.tflite")
    out = tmp_path / "out"
    from micro_relay.cli import main

    assert main(["compile", str(model), "-o", str(out), "--name", "hello", "--arena-section", ".model_ram"]) == 0
    obj = tmp_path / "hello.o"
    subprocess.run(["gcc", "-std=c99", "-c", "-I", str(out), str(out / "hello.c"), "-o", str(obj)], check=True)
    sections = subprocess.run(["objdump", "-t", str(obj)], capture_output=True, text=True).stdout
    assert any(".model_ram" in line and "hello_arena" in line for line in sections.splitlines()), sections
