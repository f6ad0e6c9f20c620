"""The samples, built with `west build` and run (native_sim as a program, Cortex-M boards in QEMU): each
prints what its sample.yaml's console regexes expect, and the budget check prints its summary line.

On Cortex-M boards the budget checker's Flash total is also compared with the linker's own memory
report (CONFIG_OUTPUT_PRINT_MEMORY_USAGE), an independent count of the same image.
"""

from __future__ import annotations

import json
import re

import pytest

from zephyr_env import REPO, boards, new_build, ordered_matches

SAMPLES = {"hello_model": "sine", "keyword_spotting": "kws", "cascade": "kws"}
DONE = {"hello_model": r"max \|y - sin\(x\)\|", "keyword_spotting": r"inputs match the reference",
        "cascade": r"inputs match the reference"}

_builds = {}


def sample_build(sample, board, tmp_path_factory):
    key = (sample, board)
    if key not in _builds:
        build_dir = tmp_path_factory.mktemp(f"{sample}-{board.replace('/', '_')}")
        _builds[key] = new_build(REPO / "samples" / sample, board, build_dir).build(pristine=True)
    return _builds[key]


def console_regexes(sample: str) -> list[str]:
    import yaml  # Zephyr's scripts need PyYAML, so a Zephyr environment has it

    spec = yaml.safe_load((REPO / "samples" / sample / "sample.yaml").read_text())
    (test,) = spec["tests"].values()
    assert test["harness"] == "console" and test["harness_config"]["ordered"]
    return test["harness_config"]["regex"]


@pytest.mark.parametrize("board", boards())
@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_sample_builds_and_runs(sample, board, tmp_path_factory):
    build = sample_build(sample, board, tmp_path_factory)
    output = build.run(DONE[sample])
    ordered_matches(output, console_regexes(sample))
    print(f"{sample} on {board}: built in {build.seconds:.0f} s\n{output}")


@pytest.mark.parametrize("board", boards())
@pytest.mark.parametrize("sample", ["hello_model", "keyword_spotting"])
def test_budget_summary_line(sample, board, tmp_path_factory):
    build = sample_build(sample, board, tmp_path_factory)
    model = SAMPLES[sample]
    lines = [line for line in build.log.splitlines() if line.startswith("micro-relay budget: ")]
    assert len(lines) == 1, build.log[-3000:]
    found = re.search(rf"^micro-relay budget: {re.escape(board)}(/\S+)?: RAM \d+ B .*, Flash \d+ B .*; "
                      rf"model {model}: arena \d+ B, (data \d+ B, )?weights (\d+) B \(([a-z]+ \d+ B(, )?)+\) "
                      rf"crc32 (0x[0-9a-f]{{8}}), (params \d+ B, )?code \d+ B", lines[0])
    assert found, lines[0]
    plan = json.loads((build.build_dir / "micro_relay" / model / f"{model}.plan.json").read_text())
    assert f"model {model}: arena {plan['arena_bytes']} B" in lines[0]
    # one weights figure: the plan's and the linked image's, the same arrays, part by part
    assert int(found.group(3)) == plan["weights_bytes"]
    parts = ", ".join(f"{part} {plan['weights'][part]} B" for part in ("weights", "biases", "requantization", "tables")
                      if plan["weights"][part])
    assert f"weights {plan['weights_bytes']} B ({parts})" in lines[0]
    # the weights the image holds are the ones compiled: the CRC of the linked arrays is the plan's
    assert found.group(6) == plan["weights"]["crc32"]


@pytest.mark.parametrize("board", boards())
def test_cascade_budget_line_shows_the_group_once(board, tmp_path_factory):
    build = sample_build("cascade", board, tmp_path_factory)
    (line,) = [line for line in build.log.splitlines() if line.startswith("micro-relay budget: ")]
    plans = {name: json.loads((build.build_dir / "micro_relay" / name / f"{name}.plan.json").read_text())
             for name in ("wake", "kws")}
    largest = max(plan["arena_bytes"] for plan in plans.values())
    separate = sum(plan["arena_bytes"] for plan in plans.values())
    assert (f"; arena group audio {largest} B for wake, kws (separate arenas: {separate} B, "
            f"{separate - largest} B saved)") in line, line
    for name, plan in plans.items():
        assert re.search(rf"model {name}: arena in group audio, weights {plan['weights_bytes']} B \([^)]*\) "
                         rf"crc32 {plan['weights']['crc32']}", line), line
        assert plan["arena_group"] == "audio"


def _linker_bytes(log: str, region: str) -> int | None:
    match = re.search(rf"^\s*{region}:\s+(\d+) (B|KB|MB)\s", log, re.MULTILINE)
    if not match:
        return None
    return int(match.group(1)) * {"B": 1, "KB": 1024, "MB": 1024 * 1024}[match.group(2)]


@pytest.mark.parametrize("board", [b for b in boards() if not b.startswith("native_sim")])
def test_budget_totals_agree_with_the_linker(board, tmp_path_factory):
    build = sample_build("keyword_spotting", board, tmp_path_factory)
    linker_flash, linker_ram = _linker_bytes(build.log, "FLASH"), _linker_bytes(build.log, "RAM")
    if linker_flash is None or linker_ram is None:
        pytest.skip("the linker printed no memory report (CONFIG_OUTPUT_PRINT_MEMORY_USAGE)")
    summary = re.search(r"RAM (\d+) B of \d+ B \([^)]*\), Flash (\d+) B", build.log)
    ram, flash = int(summary.group(1)), int(summary.group(2))
    # Flash: the same bytes, up to the linker's alignment padding between sections.
    assert abs(flash - linker_flash) <= 64, (flash, linker_flash)
    # RAM: the footprint rule also counts writable sections the linker script keeps in flash
    # (sw_isr_table), so it may exceed the linker's RAM region, never fall below it by more than padding.
    assert ram >= linker_ram - 64, (ram, linker_ram)
