"""The real-board matrix (tests/zephyr/board_matrix) with Twister: build-only on real boards, each core
compiled for its own target (check_target.py fails the build otherwise), run in QEMU on qemu_riscv32.

A board is tried when its HAL module is in the workspace (west-boards.yml brings them); otherwise it skips
and says which module is missing. MICRO_RELAY_BOARD_MATRIX (comma-separated) picks the boards; default: all.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from zephyr_env import HARDWARE_BOARDS, REPO, _arm_gcc_env, _module_args, zephyr_base

MATRIX = {
    "stm32f4_disco": ("micro_relay.boards.cortex_m4", "cortex-m4"),
    "nrf52840dk/nrf52840": ("micro_relay.boards.cortex_m4", "cortex-m4"),
    "nucleo_f746zg": ("micro_relay.boards.cortex_m7", "cortex-m7"),
    "nrf5340dk/nrf5340/cpuapp": ("micro_relay.boards.cortex_m33", "cortex-m33"),
    "nucleo_l552ze_q": ("micro_relay.boards.cortex_m33", "cortex-m33"),
    "nucleo_g071rb": ("micro_relay.boards.cortex_m0plus", "cortex-m0plus"),
    "frdm_kl25z": ("micro_relay.boards.cortex_m0plus", "cortex-m0plus"),
    "qemu_riscv32": ("micro_relay.boards.riscv32", "generic"),
}


def chosen() -> list[str]:
    value = os.environ.get("MICRO_RELAY_BOARD_MATRIX")
    return [b.strip() for b in value.split(",") if b.strip()] if value else sorted(MATRIX)


def matrix_env(board: str) -> dict:
    base = zephyr_base()
    env = dict(os.environ, ZEPHYR_BASE=str(base))
    if board == "qemu_riscv32":
        if shutil.which("qemu-system-riscv32") is None:
            pytest.skip("qemu-system-riscv32 is not installed (Debian: qemu-system-misc)")
        return _riscv_env(env)
    module = HARDWARE_BOARDS[board.split("/")[0]]
    listed = subprocess.run(["west", "list", "-f", "{name}"], cwd=base, env=env, capture_output=True, text=True)
    if module not in listed.stdout.split():
        pytest.skip(f"{board} needs the {module} module in the workspace (docs/zephyr.md: west-boards.yml)")
    return _arm_gcc_env(env)


RISCV_GCC = "/usr/bin/riscv64-unknown-elf-gcc"  # Debian's gcc-riscv64-unknown-elf


def _riscv_env(env: dict) -> dict:
    """The Zephyr SDK when ZEPHYR_TOOLCHAIN_VARIANT names it, else Debian's riscv64-unknown-elf-gcc through
    Zephyr's cross-compile variant. Two mends for that one: given the board's -march=rv32imac_zicsr_zifencei,
    GCC 12 matches no multilib and names its 64-bit libgcc, so the rv32imac/ilp32 one is put first on the
    library path; and binutils 2.40's RWX-segment warning is fatal under Twister's warnings-as-errors."""
    if env.get("ZEPHYR_TOOLCHAIN_VARIANT") == "zephyr":
        return env
    if not os.access(RISCV_GCC, os.X_OK):
        pytest.skip("qemu_riscv32 needs the Zephyr SDK (ZEPHYR_TOOLCHAIN_VARIANT=zephyr) or Debian's "
                    "gcc-riscv64-unknown-elf")
    multilib = subprocess.run([RISCV_GCC, "-march=rv32imac", "-mabi=ilp32", "-print-libgcc-file-name"],
                              capture_output=True, text=True, check=True).stdout.strip()
    return dict(env, ZEPHYR_TOOLCHAIN_VARIANT="cross-compile", CROSS_COMPILE=RISCV_GCC[:-len("gcc")],
                EXTRA_LDFLAGS=f"-L{os.path.dirname(multilib)} -Wl,--no-warn-rwx-segments")


@pytest.mark.parametrize("board", chosen())
def test_board_matrix(board, tmp_path):
    env = matrix_env(board)
    scenario, target = MATRIX[board]
    out = tmp_path / "twister-out"
    command = ["west", "twister", "-j", "1", "--inline-logs", "-p", board, "-O", str(out),
               "-T", str(REPO / "tests" / "zephyr" / "board_matrix"),
               *[f"-x={arg[2:]}" for arg in _module_args(env)]]
    done = subprocess.run(command, cwd=env["ZEPHYR_BASE"], env=env, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, (done.stdout + done.stderr)[-8000:]
    report = json.loads((out / "twister.json").read_text())
    statuses = {suite["name"].rsplit("/", 1)[-1]: suite["status"] for suite in report["testsuites"]
                if suite["status"] != "filtered"}
    assert statuses == {scenario: "passed" if board == "qemu_riscv32" else "not run"}, statuses
    # <platform>/<toolchain>/[<suite path>/]<scenario>/: Twister versions differ on the suite path
    (checked,) = out.rglob(f"{scenario}/target_checked.txt")
    assert checked.read_text().split(": ")[1].strip() == target


def test_the_documented_riscv_environment_is_the_tests():
    """docs/zephyr.md's export line for Debian's RISC-V toolchain is what _riscv_env sets."""
    if not os.access(RISCV_GCC, os.X_OK):
        pytest.skip("Debian's gcc-riscv64-unknown-elf is not installed")
    text = (REPO / "docs" / "zephyr.md").read_text()
    env = _riscv_env({})
    for name in ("ZEPHYR_TOOLCHAIN_VARIANT", "CROSS_COMPILE"):
        assert f"{name}={env[name]}" in text
    assert f'EXTRA_LDFLAGS="{env["EXTRA_LDFLAGS"]}"' in text
