"""The module's CMake wiring, without a Zephyr workspace: zephyr/CMakeLists.txt and micro_relay_model() run in a
plain CMake project where small stand-ins play Zephyr's part (zephyr_library_named() and friends, the
ZEPHYR_BASE folder that defines the link stages zephyr_pre0 and zephyr_final, a .config). The generated Ninja
file must show:

- the model's generator step with the budget check before the link (--budget-config the build's .config,
  --budget-yaml the application's budget file) and the weights section from Kconfig;
- every link stage of zephyr.elf going through the linker launcher (budget/link.py);
- the post-link check with --withdraw-images;
- both checks reading the models, their arena groups and plans from one file, one argument a line.
Nothing is built: the real builds are the workspace tests (test_zephyr_fit.py and the others).
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from zephyr_env import REPO

STANDINS = """
function(zephyr_library_named name)
  add_library(${name} STATIC)
  set(ZEPHYR_CURRENT_LIBRARY ${name} PARENT_SCOPE)
endfunction()
macro(zephyr_library_sources)
  target_sources(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${ARGN})
endmacro()
function(zephyr_include_directories)
endfunction()
function(zephyr_compile_definitions)
endfunction()
"""

ZEPHYR_FOLDER = """
# Zephyr's own folder: the module is added from here, and the link stages are defined after it.
add_subdirectory(${MICRO_RELAY_MODULE} modules/micro_relay)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/empty.c "int main(void) { return 0; }\\n")
add_executable(zephyr_pre0 ${CMAKE_CURRENT_BINARY_DIR}/empty.c)
add_executable(zephyr_final ${CMAKE_CURRENT_BINARY_DIR}/empty.c)
set(logical_target_for_zephyr_elf zephyr_final)
"""


@pytest.fixture(scope="module")
def ninja_file(tmp_path_factory):
    for tool in ("cmake", "ninja"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    root = tmp_path_factory.mktemp("wiring")
    (root / "zephyr_base").mkdir()
    (root / "zephyr_base" / "CMakeLists.txt").write_text(ZEPHYR_FOLDER)
    (root / "budget.yaml").write_text("default:\n  ram: 64K\n")
    (root / "model.tflite").write_bytes(b"TFL3")  # never read: nothing is built
    (root / "dotconfig").write_text('CONFIG_BOARD_TARGET="qemu_cortex_m3/ti_lm3s6965"\n')
    (root / "CMakeLists.txt").write_text(f"""
cmake_minimum_required(VERSION 3.21)
project(wiring C)
{STANDINS}
set(ZEPHYR_BASE ${{CMAKE_CURRENT_SOURCE_DIR}}/zephyr_base)
set(MICRO_RELAY_MODULE {(REPO / "zephyr").as_posix()})
set(APPLICATION_SOURCE_DIR ${{CMAKE_CURRENT_SOURCE_DIR}})
set(DOTCONFIG ${{CMAKE_CURRENT_SOURCE_DIR}}/dotconfig)
set(ZEPHYR_BINARY_DIR ${{CMAKE_CURRENT_BINARY_DIR}}/zephyr)
set(KERNEL_ELF_NAME zephyr.elf)
set(CONFIG_BOARD_TARGET qemu_cortex_m3/ti_lm3s6965)
set(CONFIG_MICRO_RELAY y)
set(CONFIG_MICRO_RELAY_BUDGET_CHECK y)
set(CONFIG_MICRO_RELAY_BUDGET_YAML budget.yaml)
set(CONFIG_MICRO_RELAY_WEIGHTS_SECTION .qspi_rodata)
set(CONFIG_CPU_CORTEX_M3 y)
set(CONFIG_SRAM_SIZE 64)
set(PYTHON_EXECUTABLE {sys.executable})
add_subdirectory(zephyr_base)
add_executable(app ${{ZEPHYR_BASE}}/../app.c)
file(WRITE ${{CMAKE_CURRENT_SOURCE_DIR}}/app.c "int app(void) {{ return 0; }}\\n")
micro_relay_model(app MODEL model.tflite NAME kws APP_RAM 20K)
get_property(commands GLOBAL PROPERTY extra_post_build_commands)
file(WRITE ${{CMAKE_CURRENT_BINARY_DIR}}/post_build.txt "${{commands}}")
""")
    build = root / "build"
    done = subprocess.run(["cmake", "-G", "Ninja", "-S", str(root), "-B", str(build)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    ninja = (build / "build.ninja").read_text() + (build / "CMakeFiles" / "rules.ninja").read_text()
    return ninja, (build / "post_build.txt").read_text()


def test_the_generator_checks_the_budget_before_the_link(ninja_file):
    ninja, _ = ninja_file
    (generate,) = [line for line in ninja.splitlines() if "-m micro_relay compile" in line]
    assert "--target cortex-m3" in generate and "--weights-section .qspi_rodata" in generate
    assert "--budget-config " in generate and "/dotconfig" in generate
    assert "--budget-yaml " in generate and generate.split("--budget-yaml ")[1].split()[0].endswith("/budget.yaml")


def test_app_ram_leaves_the_model_the_rest_of_the_board(ninja_file):
    """APP_RAM 20K on a 64 KiB board: the model may take 45,056 B (--ram-budget), which also picks its schedule."""
    ninja, _ = ninja_file
    (generate,) = [line for line in ninja.splitlines() if "-m micro_relay compile" in line]
    assert "--ram-budget 45056" in generate


def test_every_link_stage_goes_through_the_launcher(ninja_file):
    rules, _ = ninja_file
    for stage in ("zephyr_pre0", "zephyr_final"):
        rule = rules[rules.index(f"rule C_EXECUTABLE_LINKER__{stage}_"):]
        (command,) = [line for line in rule.splitlines()[:6] if line.strip().startswith("command = ")]
        assert "-m micro_relay.budget.link --config " in command, command
        assert "/dotconfig --board qemu_cortex_m3/ti_lm3s6965 --budget-yaml " in command and " -- " in command
    app = rules[rules.index("rule C_EXECUTABLE_LINKER__app_"):]
    assert "micro_relay.budget.link" not in app[:app.index("\n\n")]  # only zephyr.elf's stages


def test_the_post_link_check_withdraws_images(ninja_file):
    _, post_build = ninja_file
    assert "-m;micro_relay;budget;--elf" in post_build and "--withdraw-images" in post_build


def test_both_checks_read_the_models_from_one_file(ninja_file):
    ninja, post_build = ninja_file
    build = ninja_file_build_dir(post_build)
    args = build / "micro_relay" / "budget_models.args"
    assert f"@{args.as_posix()}" in post_build
    link = [line for line in ninja.splitlines() if "-m micro_relay.budget.link" in line]
    assert link and all(f"@{args.as_posix()} -- " in line for line in link), link
    # written when the build is generated, after micro_relay_model(): the model, no group, its plan
    assert args.read_text().splitlines() == [
        "--model=kws", "--arena-group=", f"--plan={(build / 'micro_relay' / 'kws' / 'kws.plan.json').as_posix()}"]



def ninja_file_build_dir(post_build: str):
    """The build folder: the post-link check's --elf is BUILD/zephyr/zephyr.elf."""
    from pathlib import Path

    (elf,) = [item for item in post_build.split(";") if item.endswith("/zephyr/zephyr.elf")]
    return Path(elf).parents[1]
