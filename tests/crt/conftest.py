"""The runtime's C ABI tests: host builds need gcc, the Cortex-M4 ones arm-none-eabi-gcc and QEMU; each skips,
saying which, when its tools are absent."""

from __future__ import annotations

import shutil

import pytest

TOOLS = {"arm-none-eabi-gcc": "gcc-arm-none-eabi", "qemu-system-arm": "qemu-system-arm"}


@pytest.fixture(scope="session")
def arm_tools():
    missing = [f"{tool} (package {package})" for tool, package in TOOLS.items() if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"not on PATH: {', '.join(missing)}")


@pytest.fixture(scope="session")
def host_cc():
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not on PATH (apt-get install gcc)")
    return "gcc"
