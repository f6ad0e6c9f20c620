"""The runtime's C ABI tests: host builds need gcc, the Cortex-M4 ones arm-none-eabi-gcc and QEMU (arm_tools,
tests/conftest.py); each skips, saying which, when its tools are absent."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture(scope="session")
def host_cc():
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not on PATH (apt-get install gcc)")
    return "gcc"
