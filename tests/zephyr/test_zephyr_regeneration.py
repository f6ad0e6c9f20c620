"""micro_relay_model() regenerates when the model or the generator changes, and only then.

An application with a model file in its source folder is built on native_sim; the generator's build
step prints "Micro Relay: compiling <model>", so its presence in a build log says it ran.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from micro_relay.examples.sine_model import build_sine_model
from zephyr_env import REPO, new_build

GENERATOR_RAN = "Micro Relay: compiling"

CMAKE = """\
cmake_minimum_required(VERSION 3.20.0)
find_package(Zephyr REQUIRED HINTS $ENV{ZEPHYR_BASE})
project(regeneration)
target_sources(app PRIVATE src/main.c)
micro_relay_model(app MODEL model/sine.tflite)
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


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Path:
    app = tmp_path_factory.mktemp("regeneration-app")
    (app / "src").mkdir()
    (app / "model").mkdir()
    (app / "CMakeLists.txt").write_text(CMAKE)
    (app / "prj.conf").write_text("CONFIG_MICRO_RELAY=y\n")
    (app / "src" / "main.c").write_text(MAIN)
    (app / "model" / "sine.tflite").write_bytes(build_sine_model())
    return app


@pytest.fixture(scope="module")
def build(app, tmp_path_factory):
    return new_build(app, "native_sim", tmp_path_factory.mktemp("regeneration-build")).build(pristine=True)


def _bump(path: Path) -> os.stat_result:
    """Give `path` the current time, newer than anything built so far; returns its old times."""
    old = path.stat()
    time.sleep(0.05)
    os.utime(path)
    return old


def test_first_build_generates(build):
    assert build.log.count(GENERATOR_RAN) == 1, build.log[-3000:]
    out = build.build_dir / "micro_relay" / "sine"
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == {"sine.c", "sine.h", "sine.plan.json"}
    assert not (out / "micro_relay").exists(), "generated with --no-runtime: no runtime copy per model"


def test_no_change_no_regeneration(build):
    generated = build.build_dir / "micro_relay" / "sine" / "sine.c"
    before = generated.stat().st_mtime_ns
    build.build()
    assert GENERATOR_RAN not in build.log, build.log
    assert generated.stat().st_mtime_ns == before


def test_touching_the_model_regenerates(app, build):
    _bump(app / "model" / "sine.tflite")
    build.build()
    assert build.log.count(GENERATOR_RAN) == 1, build.log
    build.build()
    assert GENERATOR_RAN not in build.log, build.log


def test_generator_sources_are_dependencies(app, build):
    """The build graph lists the model and every Python source of the generator as inputs."""
    query = subprocess.run(["ninja", "-C", str(build.build_dir), "-t", "query", "micro_relay/sine/sine.c"],
                           capture_output=True, text=True, check=True).stdout
    inputs = {Path(line.strip()).resolve() for line in query.splitlines() if line.startswith("    ")}
    sources = set((REPO / "scripts" / "micro_relay").rglob("*.py"))
    assert (app / "model" / "sine.tflite").resolve() in inputs
    assert sources <= inputs, sorted(str(p) for p in sources - inputs)[:5]


def test_editing_the_generator_regenerates(build):
    """Touch one generator source (content untouched, its time restored afterwards)."""
    source = REPO / "scripts" / "micro_relay" / "codegen" / "emit.py"
    old = _bump(source)
    try:
        build.build()
    finally:
        os.utime(source, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert build.log.count(GENERATOR_RAN) == 1, build.log
    build.build()
    assert GENERATOR_RAN not in build.log, build.log
