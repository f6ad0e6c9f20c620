"""Bad input stops the build with one `error: <what> (<where>)` line, never a Python traceback:
a missing model, a model the compiler rejects, a bad budget YAML, a budget smaller than the image.
All on native_sim, whose builds are the quickest.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from micro_relay.examples.sine_model import build_sine_model
from zephyr_env import new_build

CMAKE = """\
cmake_minimum_required(VERSION 3.20.0)
find_package(Zephyr REQUIRED HINTS $ENV{{ZEPHYR_BASE}})
project(bad_input)
target_sources(app PRIVATE src/main.c)
micro_relay_model(app MODEL {model} NAME sine)
"""

MAIN = """\
#include <zephyr/kernel.h>
#include "sine.h"
int main(void)
{
\tprintk("sine: %d\\n", sine_invoke());
\treturn 0;
}
"""


def make_app(root: Path, model: str = "sine.tflite", conf: str = "", model_bytes: bytes | None = None) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text(CMAKE.format(model=model))
    (root / "prj.conf").write_text("CONFIG_MICRO_RELAY=y\n" + conf)
    (root / "src" / "main.c").write_text(MAIN)
    if model_bytes is not None:
        (root / model).write_bytes(model_bytes)
    return root


def failed_with(build, *fragments: str) -> list[str]:
    assert build.returncode != 0, build.log[-3000:]
    assert "Traceback" not in build.log, build.log
    lines = [line for line in build.log.splitlines() if re.search(r"\berror: ", line)]
    for fragment in fragments:
        assert any(fragment in line for line in lines), (fragment, lines, build.log[-3000:])
    return lines


def test_missing_model(tmp_path):
    app = make_app(tmp_path / "app", model="missing.tflite")
    build = new_build(app, "native_sim", tmp_path / "build").west(pristine=True)
    failed_with(build, "error: model file not found", "missing.tflite")


def test_model_the_compiler_rejects(tmp_path):
    app = make_app(tmp_path / "app", model_bytes=b"this is not a flatbuffer at all, just words" * 4)
    build = new_build(app, "native_sim", tmp_path / "build").west(pristine=True)
    lines = failed_with(build, "error: ", "sine.tflite")
    generator = [line for line in lines if line.startswith("error: ")]
    assert len(generator) == 1, lines  # the generator's own line, as the CLI prints it


def test_needs_config_micro_relay(tmp_path):
    app = make_app(tmp_path / "app", model_bytes=build_sine_model())
    (app / "prj.conf").write_text("CONFIG_MICRO_RELAY=n\n")
    build = new_build(app, "native_sim", tmp_path / "build").west(pristine=True)
    assert build.returncode != 0 and "set CONFIG_MICRO_RELAY=y" in build.log, build.log[-3000:]


@pytest.fixture(scope="module")
def budget_app(tmp_path_factory):
    root = tmp_path_factory.mktemp("budget")
    app = make_app(root / "app", conf='CONFIG_MICRO_RELAY_BUDGET_YAML="budget.yaml"\n', model_bytes=build_sine_model())
    (app / "budget.yaml").write_text("boards:\n  native_sim:\n    ram: 1M\n    flash: 1M\n")
    build = new_build(app, "native_sim", root / "build").build(pristine=True)
    return app, build


def test_budget_yaml_within(budget_app):
    _, build = budget_app
    line = next(l for l in build.log.splitlines() if l.startswith("micro-relay budget: "))
    assert "native_sim/native: RAM " in line and "of 1048576 B" in line and "model sine: arena" in line


def test_budget_yaml_edit_rechecks(budget_app):
    """Editing only the budget file relinks and checks again: the build fails over budget."""
    app, build = budget_app
    (app / "budget.yaml").write_text("boards:\n  native_sim:\n    ram: 2K\n")
    build.west()
    lines = failed_with(build, "error: RAM over budget on native_sim/native: ",
                        "budget 2048 B (budget.yaml boards.native_sim.ram=2K)")
    assert "model sine: RAM" in build.log and "arena 32 B: sine_arena 32 B" in build.log, lines


def test_bad_budget_yaml(budget_app):
    app, build = budget_app
    (app / "budget.yaml").write_text("boards:\n  native_sim:\n    ram: plenty\n")
    build.west()
    failed_with(build, "error: budget YAML is invalid", "plenty", "budget.yaml")
    (app / "budget.yaml").write_text("boards:\n  native_sim:\n    ram: 1M\n")
    build.build()


def test_kconfig_budget_smaller_than_the_image(tmp_path):
    app = make_app(tmp_path / "app", conf="CONFIG_MICRO_RELAY_RAM_BUDGET_KB=1\n", model_bytes=build_sine_model())
    build = new_build(app, "native_sim", tmp_path / "build").west(pristine=True)
    lines = failed_with(build, "error: RAM over budget on native_sim/native: ",
                        "budget 1024 B (CONFIG_MICRO_RELAY_RAM_BUDGET_KB=1)")
    match = re.search(r"RAM over budget on \S+: (\d+) B used, budget 1024 B \([^)]*\), (\d+) B over", "\n".join(lines))
    assert int(match.group(1)) - 1024 == int(match.group(2))
    assert re.search(r"^\s+arena 32 B: sine_arena 32 B$", build.log, re.MULTILINE), build.log[-3000:]
