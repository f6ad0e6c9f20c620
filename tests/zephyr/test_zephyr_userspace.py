"""A model in a user-mode thread with the MPU on (tests/zephyr/userspace), through Twister on mps2/an385 (a
Cortex-M3: ARMv7-M MPU) and mps2/an521/cpu0 (a Cortex-M33 with TrustZone-M, secure state: ARMv8-M MPU), whose
MPUs Zephyr drives and QEMU emulates (qemu_cortex_m3's board has no MPU in Zephyr, native_sim no userspace). Both scenarios must pass on the device: the model computes the reference outputs in user mode
on an arena in micro_relay_partition, and the test-only wild write outside the partition faults on the MPU
while the system runs on.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from zephyr_env import REPO, _module_args, board_env


@pytest.mark.parametrize("board", ["mps2/an385", "mps2/an521/cpu0"])
def test_the_model_runs_in_user_mode_and_a_wild_write_faults(tmp_path, board):
    env = board_env(board)
    out = tmp_path / "twister-out"
    command = ["west", "twister", "-j", "1", "--inline-logs", "-p", board, "-O", str(out),
               "-T", str(REPO / "tests" / "zephyr" / "userspace"), *[f"-x={arg[2:]}" for arg in _module_args(env)]]
    done = subprocess.run(command, cwd=env["ZEPHYR_BASE"], env=env, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, (done.stdout + done.stderr)[-8000:]
    report = json.loads((out / "twister.json").read_text())
    statuses = {suite["name"].rsplit("/", 1)[-1]: suite["status"] for suite in report["testsuites"]}
    assert statuses == {"micro_relay.userspace": "passed", "micro_relay.userspace.wild_write": "passed"}, statuses
    cases = {case["identifier"].rsplit(".", 1)[-1]: case["status"] for suite in report["testsuites"]
             for case in suite["testcases"]}
    assert cases == {"1_the_arena_is_in_the_partition": "passed", "2_the_model_runs_in_user_mode": "passed",
                     "2_a_write_outside_the_partition_faults_and_the_system_runs_on": "passed"}, cases
