"""docs/zephyr.md's ways in, checked against what the project ships and what its tests run:

- the page starts with the two ways in: a firmware west manifest (A) and an existing workspace plus
  ZEPHYR_EXTRA_MODULES (B);
- A's manifest parses with west's manifest API and names Micro Relay's west commands and a HAL;
- west.yml and west-boards.yml parse, differ only by the HALs and the TF-M module, and the HALs are those of
  the boards the docs and the real-board matrix name;
- the documented `west micro-relay qemu` command is the one the command runs (no drift);
- with a Zephyr workspace (ZEPHYR_BASE), B's command, as written, builds hello_model.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from zephyr_env import HARDWARE_BOARDS, REPO, new_build

DOC = (REPO / "docs" / "zephyr.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = DOC.index(title)
    following = re.search(r"^##+ ", DOC[start + len(title):], re.MULTILINE)
    return DOC[start:start + len(title) + (following.start() if following else len(DOC))]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def load_yaml(text: str):
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load(text)


def west_manifest():
    return pytest.importorskip("west.manifest", reason="west is not installed")


def test_the_page_starts_with_the_two_ways_in():
    headings = re.findall(r"^##+ .*$", DOC, re.MULTILINE)
    assert headings[:3] == ["## 1. Two ways in", "### A. Your firmware's west manifest",
                            "### B. An existing Zephyr workspace, without changing its manifest"], headings[:3]


def test_way_a_manifest_parses():
    manifest = west_manifest()
    (text,) = blocks(section("### A. Your firmware's west manifest"), "yaml")
    data = load_yaml(text)
    parsed = manifest.Manifest.from_data(data, import_flags=manifest.ImportFlag.IGNORE)
    projects = {p.name: p for p in parsed.projects}
    assert projects["zephyr"].revision == "v4.1.0"
    assert projects["micro-relay"].path == "modules/lib/micro-relay"
    assert projects["micro-relay"].west_commands == ["scripts/west-commands.yml"]
    (zephyr,) = [p for p in data["manifest"]["projects"] if p["name"] == "zephyr"]
    allowlist = zephyr["import"]["name-allowlist"]
    assert {"cmsis", "picolibc"} <= set(allowlist) and set(allowlist) & set(HARDWARE_BOARDS.values())
    (commands,) = blocks(section("### A. Your firmware's west manifest"), "sh")
    assert "west init -l app" in commands and "west packages pip --install" in commands


def test_way_b_command_is_the_tests_form():
    (commands,) = blocks(section("### B. An existing Zephyr workspace"), "sh")
    assert "pip install -r <micro-relay>/requirements.txt" in commands
    assert "west build -b qemu_cortex_m3 app -- -DZEPHYR_EXTRA_MODULES=<micro-relay>" in commands
    assert (REPO / "requirements.txt").is_file()


def test_manifests_parse_and_differ_only_by_the_hals_and_tfm():
    manifest = west_manifest()
    plain, boards = (load_yaml((REPO / name).read_text()) for name in ("west.yml", "west-boards.yml"))
    for data in (plain, boards):
        manifest.Manifest.from_data(data, import_flags=manifest.ImportFlag.IGNORE)
    plain_list = plain["manifest"]["projects"][0]["import"].pop("name-allowlist")
    boards_list = boards["manifest"]["projects"][0]["import"].pop("name-allowlist")
    assert plain == boards  # the same manifest apart from the allow-list
    assert boards_list[:len(plain_list)] == plain_list
    assert set(boards_list[len(plain_list):]) == set(HARDWARE_BOARDS.values()) | {"trusted-firmware-m"}


def test_the_boards_the_docs_name_are_in_the_matrix():
    from test_zephyr_board_matrix import MATRIX

    row = next(line for line in DOC.splitlines() if line.startswith("| `tests/zephyr/board_matrix`"))
    named = set(re.findall(r"`([a-z0-9_]+(?:/[a-z0-9_]+)*)`", row)) - {"tests/zephyr/board_matrix", "check_target.py"}
    assert named == set(MATRIX), named ^ set(MATRIX)
    allowed = set()
    for scenario in load_yaml((REPO / "tests" / "zephyr" / "board_matrix" / "testcase.yaml").read_text())["tests"].values():
        allowed |= set(scenario["platform_allow"])
    assert allowed == set(MATRIX)
    assert {board.split("/")[0] for board in MATRIX} - {"qemu_riscv32"} == set(HARDWARE_BOARDS)


def test_the_documented_qemu_command_is_the_commands(tmp_path, monkeypatch):
    from micro_relay.emulate.qemu import qemu_command

    zephyr = tmp_path / "build" / "zephyr"
    zephyr.mkdir(parents=True)
    (zephyr / ".config").write_text('CONFIG_BOARD_TARGET="mps2/an386"\n')
    (zephyr / "zephyr.elf").write_bytes(b"\x7fELF")
    monkeypatch.chdir(tmp_path)
    command = " ".join(qemu_command(Path("build")))
    documented = [line.lstrip("# ").strip() for text in (DOC, *(p.read_text() for p in REPO.glob("samples/*/README.md")))
                  for line in re.findall(r"qemu-system-arm -machine mps2-an386 .*?zephyr\.elf", text)]
    assert len(documented) >= 3 and all(line == command for line in documented), (command, documented)


def test_way_b_builds_hello_model(tmp_path):
    """B's command as the page writes it, with <micro-relay> this checkout and app a copy of hello_model."""
    app = tmp_path / "app"
    shutil.copytree(REPO / "samples" / "hello_model", app)
    build = new_build(app, "qemu_cortex_m3", tmp_path / "build")
    (commands,) = blocks(section("### B. An existing Zephyr workspace"), "sh")
    line = next(line for line in commands.splitlines() if line.startswith("west build"))
    args = line.replace("<micro-relay>", str(REPO)).split()
    assert args[:4] == ["west", "build", "-b", "qemu_cortex_m3"] and args[4] == "app" and args[5] == "--"
    build.west(pristine=True, cmake_args=tuple(args[6:]))
    assert build.returncode == 0, build.log[-4000:]
    assert "micro-relay budget: qemu_cortex_m3/ti_lm3s6965: " in build.log
