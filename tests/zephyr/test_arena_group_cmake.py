"""micro_relay_model(... ARENA_GROUP audio) for two models, built for real in a plain CMake project with the
stand-ins of test_module_cmake_wiring.py (no Zephyr workspace): each model is generated as a member only, the
group's files are generated once from both plans, and the host program that runs both models on the group's
arena gets TFLite Micro's outputs. The linked program's symbols show one arena, the larger member's size.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pytest
from elftools.elf.elffile import ELFFile

from micro_relay.compiler import prepare_graph
from micro_relay.bench.measure import seeded_inputs
from micro_relay.examples.kws_model import build_kws_model
from micro_relay.examples.sine_model import build_sine_model
from support.tflm_oracle import tflm_run
from test_module_cmake_wiring import STANDINS, ZEPHYR_FOLDER
from zephyr_env import REPO

# Reads kws's input then sine's from stdin, then runs kws, sine, sine, kws, writing each status and output.
APP = r"""
#include <stdio.h>
#include <string.h>
#include "kws.h"
#include "sine.h"

static unsigned char kws_in[KWS_INPUT0_BYTES];
static unsigned char sine_in[SINE_INPUT0_BYTES];

static void run_kws(void)
{
    memcpy(kws_input(0), kws_in, sizeof kws_in);
    putchar(kws_invoke());
    fwrite(kws_output(0), 1, KWS_OUTPUT0_BYTES, stdout);
}

static void run_sine(void)
{
    memcpy(sine_input(0), sine_in, sizeof sine_in);
    putchar(sine_invoke());
    fwrite(sine_output(0), 1, SINE_OUTPUT0_BYTES, stdout);
}

int main(void)
{
    if (fread(kws_in, 1, sizeof kws_in, stdin) != sizeof kws_in ||
        fread(sine_in, 1, sizeof sine_in, stdin) != sizeof sine_in) {
        return 2;
    }
    run_kws();
    run_sine();
    run_sine();
    run_kws();
    return 0;
}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    for tool in ("cmake", "ninja", "gcc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    root = tmp_path_factory.mktemp("arena_group_cmake")
    (root / "zephyr_base").mkdir()
    (root / "zephyr_base" / "CMakeLists.txt").write_text(ZEPHYR_FOLDER)
    (root / "kws.tflite").write_bytes(build_kws_model())
    (root / "sine.tflite").write_bytes(build_sine_model())
    (root / "app.c").write_text(APP)
    (root / "CMakeLists.txt").write_text(f"""
cmake_minimum_required(VERSION 3.21)
project(arena_group C)
{STANDINS}
# built for real here: the runtime's headers reach the library and, through it, the application
function(zephyr_include_directories)
  target_include_directories(${{ZEPHYR_CURRENT_LIBRARY}} PUBLIC ${{ARGN}})
endfunction()
set(ZEPHYR_BASE ${{CMAKE_CURRENT_SOURCE_DIR}}/zephyr_base)
set(MICRO_RELAY_MODULE {(REPO / "zephyr").as_posix()})
set(APPLICATION_SOURCE_DIR ${{CMAKE_CURRENT_SOURCE_DIR}})
set(CONFIG_MICRO_RELAY y)
set(PYTHON_EXECUTABLE {sys.executable})
add_subdirectory(zephyr_base)
add_executable(app app.c)
target_link_libraries(app PRIVATE micro_relay m)
micro_relay_model(app MODEL kws.tflite NAME kws ARENA_GROUP audio)
micro_relay_model(app MODEL sine.tflite NAME sine ARENA_GROUP audio)
""")
    build = root / "build"
    for command in (["cmake", "-G", "Ninja", "-S", str(root), "-B", str(build)], ["ninja", "-C", str(build), "app"]):
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    return root, build


def test_members_are_generated_alone_and_the_group_from_both_plans(built):
    _, build = built
    ninja = (build / "build.ninja").read_text()
    compiles = [line for line in ninja.splitlines() if "-m micro_relay compile" in line]
    assert len(compiles) == 2 and all("--arena-group audio --no-group-files" in line for line in compiles)
    (group,) = [line for line in ninja.splitlines() if "-m micro_relay arena-group audio" in line]
    assert "kws/kws.plan.json" in group and "sine/sine.plan.json" in group
    # the members' folders hold no group file: a member includes the group's one header
    assert not list(build.rglob("kws/audio_arena.h")) and len(list(build.rglob("audio_arena.h"))) == 1


def test_the_program_has_one_arena_and_both_models_compute_what_tflite_micro_does(built):
    root, build = built
    exe = build / "app"
    with open(exe, "rb") as handle:
        sizes = {s.name: s["st_size"] for s in ELFFile(handle).get_section_by_name(".symtab").iter_symbols()}
    header = next(build.rglob("audio_arena.h")).read_text()
    size = int(header.split("#define AUDIO_ARENA_SIZE ")[1].split()[0])
    assert sizes["audio_arena"] == size and "kws_arena" not in sizes and "sine_arena" not in sizes

    models = {name: (root / f"{name}.tflite").read_bytes() for name in ("kws", "sine")}
    inputs = {name: seeded_inputs(prepare_graph(root / f"{name}.tflite"), 4) for name in models}
    want = {name: tflm_run(models[name], inputs[name])[0] for name in models}
    stdin = inputs["kws"][0].tobytes() + inputs["sine"][0].tobytes()
    out = subprocess.run([str(exe)], input=stdin, capture_output=True, check=True, timeout=60).stdout
    pos = 0
    for name in ("kws", "sine", "sine", "kws"):
        assert out[pos] == 0, f"{name}_invoke returned {out[pos]}"
        got = np.frombuffer(out[pos + 1:pos + 1 + want[name].nbytes], dtype=want[name].dtype)
        np.testing.assert_array_equal(got, want[name].reshape(-1), err_msg=name)
        pos += 1 + want[name].nbytes
    assert pos == len(out)
