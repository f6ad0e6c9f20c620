"""A model in a user-mode thread with the MPU on (tests/zephyr/userspace), through Twister on mps2/an385 (a
Cortex-M3: ARMv7-M MPU) and mps2/an521/cpu0 (a Cortex-M33 with TrustZone-M, secure state: ARMv8-M MPU), whose
MPUs Zephyr drives and QEMU emulates (qemu_cortex_m3's board has no MPU in Zephyr, native_sim no userspace).
Both scenarios must pass on the device: the model computes the reference outputs in user mode on an arena in
micro_relay_partition, and the test-only wild write outside the partition faults on the MPU while the system
runs on. The non-secure image of the Cortex-M33 (mps2/an521/cpu0/ns) is built only: its secure image is built
apart, and the partition must lie in the non-secure SRAM.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from micro_relay.budget.config import read_kconfig
from zephyr_env import REPO, _module_args, board_env


def twister_userspace(board: str, env: dict, out: Path) -> dict:
    """Twister's report (twister.json) of tests/zephyr/userspace on `board`, its builds under `out`."""
    command = ["west", "twister", "-j", "1", "--inline-logs", "-p", board, "-O", str(out),
               "-T", str(REPO / "tests" / "zephyr" / "userspace"), *[f"-x={arg[2:]}" for arg in _module_args(env)]]
    done = subprocess.run(command, cwd=env["ZEPHYR_BASE"], env=env, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, (done.stdout + done.stderr)[-8000:]
    return json.loads((out / "twister.json").read_text())


@pytest.mark.parametrize("board", ["mps2/an385", "mps2/an521/cpu0"])
def test_the_model_runs_in_user_mode_and_a_wild_write_faults(tmp_path, board):
    env = board_env(board)
    out = tmp_path / "twister-out"
    report = twister_userspace(board, env, out)
    statuses = {suite["name"].rsplit("/", 1)[-1]: suite["status"] for suite in report["testsuites"]}
    assert statuses == {"micro_relay.userspace": "passed", "micro_relay.userspace.wild_write": "passed"}, statuses
    cases = {case["identifier"].rsplit(".", 1)[-1]: case["status"] for suite in report["testsuites"]
             for case in suite["testcases"]}
    assert cases == {"1_the_arena_is_in_the_partition": "passed", "2_the_model_runs_in_user_mode": "passed",
                     "2_a_write_outside_the_partition_faults_and_the_system_runs_on": "passed"}, cases


def _tfm_module(env) -> Path | None:
    """The workspace's trusted-firmware-m module folder, or None."""
    listed = subprocess.run(["west", "list", "-f", "{abspath}", "trusted-firmware-m"], cwd=env["ZEPHYR_BASE"],
                            env=env, capture_output=True, text=True)
    path = Path(listed.stdout.strip()) if listed.returncode == 0 and listed.stdout.strip() else None
    return path if path is not None and (path / "zephyr" / "module.yml").is_file() else None


def test_the_nonsecure_trustzone_image_builds_with_the_arena_in_nonsecure_ram(tmp_path):
    """mps2/an521/cpu0/ns, built only (scenario nonsecure): the arena and the user thread's results are in
    micro_relay_partition, and the partition lies in the SRAM the build's devicetree gives the non-secure image
    (CONFIG_SRAM_BASE_ADDRESS and CONFIG_SRAM_SIZE come from its chosen zephyr,sram)."""
    board = "mps2/an521/cpu0/ns"
    env = board_env(board)
    if _tfm_module(env) is None:
        pytest.skip("the workspace has no trusted-firmware-m module: Zephyr 4.1 offers CONFIG_BUILD_WITH_TFM=n "
                    "(the secure image built apart) only with it (west.yml group 'tee')")
    out = tmp_path / "twister-out"
    report = twister_userspace(board, env, out)
    statuses = {suite["name"].rsplit("/", 1)[-1]: suite["status"] for suite in report["testsuites"]}
    # Twister's status of a build-only scenario that built; the scenarios that run are not for _ns boards
    assert statuses == {"micro_relay.userspace.nonsecure": "not run"}, statuses
    (elf,) = [p for p in out.rglob("zephyr/zephyr.elf") if "nonsecure" in str(p)]
    config = read_kconfig(elf.parent / ".config")
    assert config.get("CONFIG_TRUSTED_EXECUTION_NONSECURE") == "y" and config.get("CONFIG_BUILD_WITH_TFM") != "y"
    sram = (config["CONFIG_SRAM_BASE_ADDRESS"], config["CONFIG_SRAM_BASE_ADDRESS"] + config["CONFIG_SRAM_SIZE"] * 1024)
    with open(elf, "rb") as handle:
        symbols = {s.name: s for s in ELFFile(handle).get_section_by_name(".symtab").iter_symbols()}
        start = symbols["z_data_smem_micro_relay_partition_part_start"]["st_value"]
        size = symbols["z_data_smem_micro_relay_partition_part_size"]["st_value"]
        assert sram[0] <= start and start + size <= sram[1], (hex(start), size, [hex(a) for a in sram])
        for name in ("kws_arena", "results"):
            symbol = symbols[name]
            assert start <= symbol["st_value"] and symbol["st_value"] + symbol["st_size"] <= start + size, name
    plan = json.loads(next(out.rglob("micro_relay/kws/kws.plan.json")).read_text())
    assert symbols["kws_arena"]["st_size"] == plan["arena_bytes"]
