"""The wheel a user gets from `pip install .` compiles a model on its own: it is built from a copy of the
repository's packaging inputs, installed into a fresh virtual environment, and run from a folder outside any source
tree with nothing of the checkout on the path. The C it writes (the CRT included) builds with the host compiler and
computes what TFLite Micro computes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import numpy as np
import pytest

from support.c_harness import build_host_program, run_host_program
from support.tflm_oracle import tflm_run

ROOT = Path(__file__).resolve().parents[2]
PACKAGING_INPUTS = ("pyproject.toml", "setup.py", "MANIFEST.in", "scripts", "crt")
CRT_FILES = sorted(p.relative_to(ROOT / "crt").as_posix() for pattern in ("include/micro_relay/*.h", "src/*.c")
                   for p in (ROOT / "crt").glob(pattern))


def _clean_env() -> dict:
    """The environment without anything that would put the checkout on the path."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}


def _run(command, cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(c) for c in command], cwd=cwd, env=_clean_env(), capture_output=True, text=True,
                            timeout=300, **kwargs)
    assert result.returncode == 0, f"{' '.join(map(str, command))}\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """micro-relay's wheel, built from a copy of the repository (the build writes build/ and egg-info beside its
    inputs) without build isolation: setuptools comes from the test environment, nothing is downloaded."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in PACKAGING_INPUTS:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(path, source / name)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
          "-w", work / "dist", source], cwd=work)
    (built,) = (work / "dist").glob("micro_relay-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel installed; numpy, tflite and the other dependencies come from
    the test environment's site-packages through a .pth file placed after the venv's own."""
    root = tmp_path_factory.mktemp("venv") / "env"
    _run([sys.executable, "-m", "venv", "--without-pip", root], cwd=root.parent)
    python = root / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel],
         cwd=root.parent)
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        cwd=root.parent).stdout.strip())
    (purelib / "zz_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return root


def test_wheel_carries_the_runtime_and_package_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [f for f in CRT_FILES if f"micro_relay/crt/{f}" not in names]
    assert not missing, f"CRT files missing from the wheel: {missing}"
    assert "micro_relay/target/cortex_m4_coefficients.json" in names
    assert "micro_relay/bench/runner/bench_main.c" in names and "micro_relay/bench/runner/ld/mps2-an386.ld" in names
    assert not [n for n in names if n.startswith(("tests/", "crt/", "scripts/"))], "files outside the package"


def test_installed_wheel_compiles_a_model_whose_c_builds_and_matches_tflite_micro(venv, tmp_path):
    python = venv / "bin" / "python"
    where = _run([python, "-c", "import micro_relay, micro_relay.compiler as c; print(micro_relay.__file__); "
                  "print(c.CRT_DIR)"], cwd=tmp_path).stdout.split()
    assert all(Path(p).resolve().is_relative_to(venv.resolve()) for p in where), where
    model = tmp_path / "sine.tflite"
    _run([python, "-c", "import sys; from micro_relay.examples.sine_model import build_sine_model; "
          "open(sys.argv[1], 'wb').write(build_sine_model())", model], cwd=tmp_path)
    out = tmp_path / "out"
    _run([venv / "bin" / "micro-relay", "compile", model, "-o", out, "--name", "sine"], cwd=tmp_path)
    for relative in CRT_FILES:
        if relative.startswith("include/"):
            written = out / relative.removeprefix("include/")
            assert written.read_bytes() == (ROOT / "crt" / relative).read_bytes(), relative
    assert (out / "mr_dense.c").read_bytes() == (ROOT / "crt" / "src" / "mr_dense.c").read_bytes()

    model_bytes = model.read_bytes()
    exe = build_host_program(out, "sine")
    rng = np.random.default_rng(13)
    samples = [[rng.integers(-128, 128, size=(1, 1), dtype=np.int8)] for _ in range(32)]
    compiled = run_host_program(exe, samples, [(np.int8, (1, 1))])
    for sample, (output,) in zip(samples, compiled):
        (expected,) = tflm_run(model_bytes, [x.copy() for x in sample])
        np.testing.assert_array_equal(output, np.asarray(expected).reshape(output.shape))
