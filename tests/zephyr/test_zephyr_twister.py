"""Twister over this module's Twister suites (tests/zephyr) and samples, per board.

model_outputs and two_models run ztest on the device; over_budget is build-only and validates the budget
checker's report during the build; the samples check their console output.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from zephyr_env import QEMU_MACHINES, REPO, _module_args, board_env, boards

EXPECTED = {"micro_relay.model_outputs", "micro_relay.model_outputs.noinit_arena", "micro_relay.two_models",
            "micro_relay.budget.over_budget", "micro_relay.sample.hello_model", "micro_relay.sample.keyword_spotting",
            "micro_relay.sample.cascade", "micro_relay.sample.model_server"}
# samples/mobilenet_v2 needs 192 KB of RAM: the boards its sample.yaml allows (mps2/an386 here) add it
LARGE = {"micro_relay.sample.mobilenet_v2": REPO / "samples" / "mobilenet_v2" / "sample.yaml"}
# scenarios Twister builds only: the over-budget one fails its link on purpose, the server needs a host
BUILT_ONLY = {"micro_relay.budget.over_budget", "micro_relay.sample.model_server"}


@pytest.mark.parametrize("board", boards())
def test_twister(board, tmp_path):
    env = board_env(board)
    out = tmp_path / "twister-out"
    command = ["west", "twister", "-j", "1", "--inline-logs", "-p", board, "-O", str(out),
               "-T", str(REPO / "tests" / "zephyr"), "-T", str(REPO / "samples"),
               *[f"-x={arg[2:]}" for arg in _module_args(env)]]
    build_only = board in QEMU_MACHINES  # no emulator Twister knows for this board: build only
    if build_only:
        command.append("--build-only")
    done = subprocess.run(command, cwd=env["ZEPHYR_BASE"], env=env, capture_output=True, text=True, timeout=5400)
    assert done.returncode == 0, (done.stdout + done.stderr)[-8000:]
    report = json.loads((out / "twister.json").read_text())
    # Scenarios whose platform_allow leaves this board out (the real-board matrix) are filtered.
    statuses = {suite["name"].rsplit("/", 1)[-1]: suite["status"] for suite in report["testsuites"]
                if suite["status"] != "filtered"}
    import yaml

    large = {name for name, spec in LARGE.items()
             if board in yaml.safe_load(spec.read_text())["common"]["platform_allow"]}
    assert set(statuses) == EXPECTED | large, statuses
    for name, status in statuses.items():
        built_only = build_only or name in BUILT_ONLY
        expected = "not run" if built_only else "passed"
        assert status == expected, (name, status)

    # CONFIG_MICRO_RELAY_ARENA_SECTION put both arenas in the noinit section; without it, in bss.
    for scenario, section in (("micro_relay.model_outputs.noinit_arena", "noinit"), ("micro_relay.model_outputs", "bss")):
        (elf,) = out.rglob(f"{scenario}/zephyr/zephyr.elf")  # with or without the suite path, by version
        sections = arena_sections(elf)
        assert set(sections) == {"sine_arena", "kws_arena"}, sections
        assert all(section in name for name, _ in sections.values()), sections
        # Every arena is a 16-byte-aligned array (docs/zephyr.md), wherever it is placed.
        assert all(address % 16 == 0 for _, address in sections.values()), sections


def arena_sections(elf) -> dict[str, tuple[str, int]]:
    """Each *_arena symbol: (its section's name, its address)."""
    from elftools.elf.elffile import ELFFile

    with open(elf, "rb") as handle:
        image = ELFFile(handle)
        symbols = image.get_section_by_name(".symtab")
        return {s.name: (image.get_section(s["st_shndx"]).name, s["st_value"]) for s in symbols.iter_symbols()
                if s.name.endswith("_arena") and isinstance(s["st_shndx"], int)}
