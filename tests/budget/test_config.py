"""Budget sources: sizes, the build's .config, the per-board YAML (pykwalify) and the tightest limit."""

from __future__ import annotations

import pytest

from micro_relay.budget import load_budget_yaml, parse_size, read_kconfig, resolve_budget
from micro_relay.errors import CompileError


@pytest.mark.parametrize("text, expected", [
    ("65536", 65536), (4096, 4096), ("64K", 65536), ("64 KiB", 65536), ("64kb", 65536), ("1M", 1 << 20),
    ("2 MiB", 2 << 20), ("100B", 100),
])
def test_parse_size(text, expected):
    assert parse_size(text, "test") == expected


@pytest.mark.parametrize("text", ["", "64X", "-1", "1.5K", "K"])
def test_parse_size_rejects(text):
    with pytest.raises(CompileError, match="bad size"):
        parse_size(text, "--ram")


def test_read_kconfig(tmp_path):
    path = tmp_path / ".config"
    path.write_text('# comment\nCONFIG_SRAM_SIZE=64\nCONFIG_BOARD_TARGET="qemu_cortex_m3/ti_lm3s6965"\n'
                    'CONFIG_MICRO_RELAY=y\n# CONFIG_FOO is not set\nCONFIG_HEX=0x10\n')
    values = read_kconfig(path)
    assert values == {"CONFIG_SRAM_SIZE": 64, "CONFIG_BOARD_TARGET": "qemu_cortex_m3/ti_lm3s6965",
                      "CONFIG_MICRO_RELAY": "y", "CONFIG_HEX": 16}


def test_read_kconfig_rejects_other_files(tmp_path):
    path = tmp_path / ".config"
    path.write_text("hello world\n")
    with pytest.raises(CompileError, match="not a Kconfig file"):
        read_kconfig(path)


def write(tmp_path, text):
    path = tmp_path / "budget.yaml"
    path.write_text(text)
    return path


def test_yaml_board_entry_then_board_name_then_default(tmp_path):
    path = write(tmp_path, "default:\n  ram: 48K\n  flash: 200K\n"
                           "boards:\n  qemu_cortex_m3:\n    ram: 16K\n  mps2/an386:\n    flash: 100000\n")
    kconfig = {"CONFIG_SRAM_SIZE": 64, "CONFIG_FLASH_SIZE": 256}
    b = resolve_budget("qemu_cortex_m3/ti_lm3s6965", kconfig, path)
    assert (b.ram.bytes, b.ram.source) == (16384, "budget.yaml boards.qemu_cortex_m3.ram=16K")
    assert b.flash.bytes == 256 * 1024  # no flash entry for this board: the board's own memory
    b = resolve_budget("mps2/an386", {}, path)
    assert b.flash.bytes == 100000 and b.ram is None
    b = resolve_budget("native_sim", {}, path)
    assert (b.ram.bytes, b.flash.bytes) == (48 * 1024, 200 * 1024)


def test_tightest_limit_wins(tmp_path):
    path = write(tmp_path, "boards:\n  b:\n    ram: 40K\n")
    kconfig = {"CONFIG_SRAM_SIZE": 64, "CONFIG_MICRO_RELAY_RAM_BUDGET_KB": 32, "CONFIG_FLASH_SIZE": 256,
               "CONFIG_MICRO_RELAY_FLASH_BUDGET_KB": 0, "CONFIG_BOARD_TARGET": "b"}
    b = resolve_budget(None, kconfig, path)
    assert b.board == "b"
    assert (b.ram.bytes, b.ram.source) == (32 * 1024, "CONFIG_MICRO_RELAY_RAM_BUDGET_KB=32")
    assert (b.flash.bytes, b.flash.source) == (256 * 1024, "CONFIG_FLASH_SIZE=256")  # 0 means no limit
    b = resolve_budget(None, kconfig, path, ram="20K")
    assert b.ram.source == "--ram 20K"


def test_no_budget_anywhere():
    b = resolve_budget("native_sim", {"CONFIG_SRAM_SIZE": 0})
    assert b.ram is None and b.flash is None


@pytest.mark.parametrize("text, fragment", [
    ("boards:\n  b:\n    rom: 1K\n", "Key 'rom' was not defined"),
    ("boards:\n  b:\n    ram: lots\n", "does not match pattern"),
    ("boards:\n  b:\n    ram: 1.5K\n", "does not match pattern"),
    ("boards: [a, b]\n", "not a dict"),
    ("ram: 1K\n", "Key 'ram' was not defined"),
    ("boards:\n  b: {ram: 1K\n", "does not parse"),
])
def test_bad_yaml_is_one_line(tmp_path, text, fragment):
    path = write(tmp_path, text)
    with pytest.raises(CompileError) as info:
        load_budget_yaml(path)
    message = str(info.value)
    assert fragment in message and "\n" not in message and str(path.name) in message


def test_missing_yaml(tmp_path):
    with pytest.raises(CompileError, match="budget YAML file not found"):
        load_budget_yaml(tmp_path / "none.yaml")


def test_empty_yaml_is_no_budget(tmp_path):
    path = write(tmp_path, "# nothing yet\n")
    assert load_budget_yaml(path) == {}
    assert resolve_budget("b", {}, path).ram is None
