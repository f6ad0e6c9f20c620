"""CMSIS-NN backend tests: the library comes from CMSIS_NN_PATH (a CMSIS-NN checkout: Include/, Source/);
tests that need it skip without it. The host build of the library is made once per session."""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from micro_relay.bench.cmsis_nn import ENV, LIBRARY_FLAGS, include_dir, library_sources


@pytest.fixture(scope="session")
def cmsis_nn_root() -> Path:
    path = os.environ.get(ENV)
    if not path:
        pytest.skip(f"{ENV} is not set (a CMSIS-NN checkout with Include/ and Source/)")
    root = Path(path)
    if not (include_dir(root) / "arm_nnfunctions.h").is_file():
        pytest.skip(f"{ENV}={path} has no Include/arm_nnfunctions.h")
    return root


@pytest.fixture(scope="session")
def host_cmsis_nn(cmsis_nn_root, tmp_path_factory) -> Path:
    """libcmsis-nn.a built with the host gcc: CMSIS-NN's portable C (no ARM_MATH_DSP/MVEI on the host)."""
    build = tmp_path_factory.mktemp("cmsis_nn_host")
    sources = library_sources(cmsis_nn_root)
    objects = [build / f"{s.parent.name}_{s.stem}.o" for s in sources]

    def compile_one(pair):
        source, obj = pair
        return subprocess.run(["gcc", "-O2", "-std=c99", *LIBRARY_FLAGS, f"-I{include_dir(cmsis_nn_root)}", "-c",
                               str(source), "-o", str(obj)], capture_output=True, text=True)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        failed = [r.stderr for r in pool.map(compile_one, zip(sources, objects)) if r.returncode]
    assert not failed, failed[0][-2000:]
    archive = build / "libcmsis-nn.a"
    subprocess.run(["ar", "rcs", str(archive), *map(str, objects)], check=True)
    return archive
