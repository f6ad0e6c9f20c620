"""The wheel carries the C runtime: build_py copies the repository's crt/ into the built package as
micro_relay/crt/, where micro_relay.codegen.crt.CRT_DIR finds it once installed. crt/ stays the one source (the
Zephyr module and cmake/ use it in place); an editable install reads it from the checkout, so nothing is copied
there. Everything else (name, dependencies, package data) is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
CRT = ROOT / "crt"
CRT_PARTS = ("include/micro_relay/*.h", "src/*.c", "cmsis_nn/*.h", "cmsis_nn/*.c")


class BuildWithRuntime(build_py):
    """build_py, plus crt/ copied into the package (only the headers and sources the compiler writes out)."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "micro_relay" / "crt"
        if target.exists():
            shutil.rmtree(target)
        for pattern in CRT_PARTS:
            for source in sorted(CRT.glob(pattern)):
                destination = target / source.relative_to(CRT)
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, destination)

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        target = Path(self.build_lib) / "micro_relay" / "crt"
        return outputs + [str(target / s.relative_to(CRT)) for p in CRT_PARTS for s in sorted(CRT.glob(p))]


setup(cmdclass={"build_py": BuildWithRuntime})
