"""samples/mobilenet_v2 with west: MobileNetV2 0.75 at 224x224 int8 on a 192 KB Cortex-M4.

- nucleo_f429zi (STM32F429ZI: 192 KB of SRAM at 0x20000000, 2 MB of flash; build only, it needs the hal_stm32
  module): the build's budget check passes, the whole firmware within the board's 192 KB, the model's arena
  within the 176 KB APP_RAM leaves it, in patches (1,214,664 B layer by layer, 207,208 B in one patch);
- mps2/an386 (Cortex-M4, QEMU): the same schedule (prj.conf gives every board the 192 KB budget), run, every
  score equal to the reference interpreter's (which tests/examples/test_mobilenet_v2.py ties to TFLite Micro).
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from zephyr_env import REPO, Build, _arm_gcc_env, new_build, ordered_matches, zephyr_base

SAMPLE = REPO / "samples" / "mobilenet_v2"
BUDGET = 192 * 1024
MODEL_RAM = BUDGET - 16 * 1024


def _plan(build) -> dict:
    return json.loads((build.build_dir / "micro_relay" / "mbv2" / "mbv2.plan.json").read_text())


def _budget_line(build) -> str:
    (line,) = [line for line in build.log.splitlines() if line.startswith("micro-relay budget: ")]
    return line


def _assert_patched_within(plan: dict) -> None:
    rows = plan["row_by_row"]
    assert plan["arena_bytes"] <= MODEL_RAM < rows["arena_layer_by_layer"]
    assert any(run["patches"] != [1, 1] for run in rows["runs"])


def test_builds_for_a_192_kb_stm32f429_within_budget(tmp_path):
    env = _arm_gcc_env(dict(os.environ, ZEPHYR_BASE=str(zephyr_base())))
    build = Build(SAMPLE, "nucleo_f429zi", tmp_path / "build", env)
    listed = subprocess.run(["west", "list", "-f", "{name}"], cwd=env["ZEPHYR_BASE"], env=env, capture_output=True,
                            text=True)
    if "hal_stm32" not in listed.stdout.split():
        pytest.skip("nucleo_f429zi needs the hal_stm32 module in the workspace (docs/zephyr.md: west-boards.yml)")
    build.build(pristine=True)
    config = (build.build_dir / "zephyr" / ".config").read_text()
    assert "CONFIG_SRAM_SIZE=192\n" in config and "CONFIG_FLASH_SIZE=2048\n" in config
    line = _budget_line(build)
    ram = re.search(r": RAM (\d+) B of (\d+) B", line)
    assert ram and int(ram.group(2)) == BUDGET and int(ram.group(1)) <= BUDGET, line
    _assert_patched_within(_plan(build))


def test_runs_on_mps2_an386_in_qemu(tmp_path):
    import yaml

    build = new_build(SAMPLE, "mps2/an386", tmp_path / "build").build(pristine=True)
    _assert_patched_within(_plan(build))
    assert re.search(r": RAM \d+ B of 196608 B", _budget_line(build))
    output = build.run(r"inputs match the reference", timeout=600)
    (test,) = yaml.safe_load((SAMPLE / "sample.yaml").read_text())["tests"].values()
    ordered_matches(output, test["harness_config"]["regex"])
    print(output)
