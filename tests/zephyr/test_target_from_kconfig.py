"""micro_relay_model() derives `--target` from the board's Kconfig (cmake/MicroRelay.cmake,
micro_relay_target_of_kconfig): each CONFIG_CPU_CORTEX_* symbol gives the core's target, an M33 without the DSP
extension and an unknown core fall back to portable code, and every name it gives is one the compiler knows.
Runs the CMake function in script mode (plain cmake, no Zephyr workspace)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from micro_relay.target import TARGETS
from zephyr_env import REPO

# Kconfig symbols set (=y) -> the target
CASES = {
    "CPU_CORTEX_M0": "cortex-m0plus",
    "CPU_CORTEX_M0PLUS": "cortex-m0plus",
    "CPU_CORTEX_M3": "cortex-m3",
    "CPU_CORTEX_M4": "cortex-m4",
    "CPU_CORTEX_M7": "cortex-m7",
    "CPU_CORTEX_M33 ARMV8_M_DSP": "cortex-m33",
    "CPU_CORTEX_M33": "generic",  # an M33 built without the DSP extension
    "CPU_CORTEX_M55": "cortex-m55",
    "CPU_CORTEX_A53": "generic",
    "": "generic",
}


@pytest.mark.parametrize("symbols", sorted(CASES), ids=lambda s: s.replace(" ", "+") or "none")
def test_target_of_kconfig(tmp_path, symbols):
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("cmake is not on PATH")
    script = tmp_path / "target.cmake"
    sets = "".join(f"set(CONFIG_{s} y)\n" for s in symbols.split())
    script.write_text(f'include("{(REPO / "cmake" / "MicroRelay.cmake").as_posix()}")\n{sets}'
                      'micro_relay_target_of_kconfig(core)\nmessage("target=${core}")\n')
    result = subprocess.run([cmake, "-P", str(script)], capture_output=True, text=True, check=True)
    target = result.stderr.strip().removeprefix("target=")
    assert target == CASES[symbols] and target in TARGETS
