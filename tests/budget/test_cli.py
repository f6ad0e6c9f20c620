"""`micro-relay budget` and `python3 -m micro_relay budget`: exit 0 within budget, 1 over, 2 on bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest

from micro_relay.budget import ElfImage
from micro_relay.cli import main

from .elfs import ARENA


def run(capsys, *args):
    code = main(["budget", *[str(a) for a in args]])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code, err, *fragments):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_within_budget(elf, capsys):
    code, out, err = run(capsys, "--elf", elf, "--ram", "64K", "--flash", "256K", "--board", "b")
    assert code == 0 and err == ""
    assert len(out.splitlines()) == 1 and out.startswith("micro-relay budget: b: RAM ")


def test_over_budget_exit_1(elf, capsys):
    code, out, err = run(capsys, "--elf", elf, "--ram", "4K")
    assert code == 1 and out == ""
    assert err.startswith("error: RAM over budget on (no board): ") and f"tiny_arena {ARENA} B" in err


def test_config_and_yaml(elf, tmp_path, capsys):
    ram = ElfImage(elf).ram_bytes
    config = tmp_path / ".config"
    config.write_text('CONFIG_BOARD_TARGET="qemu_cortex_m3/ti_lm3s6965"\nCONFIG_SRAM_SIZE=64\n'
                      'CONFIG_FLASH_SIZE=256\nCONFIG_MICRO_RELAY_RAM_BUDGET_KB=0\n')
    code, out, _ = run(capsys, "--elf", elf, "--config", config)
    assert code == 0 and "qemu_cortex_m3/ti_lm3s6965: RAM" in out and "of 65536 B" in out
    yaml = tmp_path / "budget.yaml"
    yaml.write_text(f"boards:\n  qemu_cortex_m3:\n    ram: {ram - 1}\n")
    code, _, err = run(capsys, "--elf", elf, "--config", config, "--budget-yaml", yaml)
    assert code == 1
    assert (f"error: RAM over budget on qemu_cortex_m3/ti_lm3s6965: {ram} B used, budget {ram - 1} B "
            f"(budget.yaml boards.qemu_cortex_m3.ram={ram - 1}), 1 B over") in err


def test_output_file_and_always_succeed(elf, tmp_path, capsys):
    report = tmp_path / "report.txt"
    code, _, err = run(capsys, "--elf", elf, "--ram", "1K", "--output", report, "--always-succeed")
    assert code == 0 and report.read_text() == err


def test_model_option(elf, capsys):
    code, out, _ = run(capsys, "--elf", elf, "--model", "tiny_small")
    assert code == 0 and "model tiny_small:" in out and "model tiny:" not in out


def test_build_dir(elf, tmp_path, capsys):
    build = tmp_path / "build"
    (build / "zephyr").mkdir(parents=True)
    (build / "zephyr" / "zephyr.elf").write_bytes(elf.read_bytes())
    (build / "zephyr" / ".config").write_text('CONFIG_BOARD_TARGET="b"\nCONFIG_MICRO_RELAY_BUDGET_YAML="b.yaml"\n')
    app = tmp_path / "app"
    app.mkdir()
    (app / "b.yaml").write_text("boards:\n  b:\n    ram: 1K\n")
    (build / "CMakeCache.txt").write_text(f"APPLICATION_SOURCE_DIR:PATH={app}\n")
    code, _, err = run(capsys, "--build-dir", build)
    assert code == 1 and "(b.yaml boards.b.ram=1K)" in err


def test_non_elf(tmp_path, capsys):
    path = tmp_path / "firmware.bin"
    path.write_bytes(b"\x00\x01" * 100)
    code, out, err = run(capsys, "--elf", path, "--ram", "1K")
    assert_one_line_error(code, err, "not a readable ELF file", "firmware.bin")


def test_bad_yaml(elf, tmp_path, capsys):
    yaml = tmp_path / "budget.yaml"
    yaml.write_text("boards:\n  b:\n    ram: plenty\n")
    code, _, err = run(capsys, "--elf", elf, "--board", "b", "--budget-yaml", yaml)
    assert_one_line_error(code, err, "budget YAML is invalid", "plenty", "budget.yaml")


@pytest.mark.parametrize("args, fragment", [
    (["--ram", "64X"], "bad size '64X'"),
    ([], "no image to check"),
])
def test_bad_arguments(elf, capsys, args, fragment):
    code, _, err = run(capsys, *(["--elf", elf] if args else []), *args)
    assert_one_line_error(code, err, fragment)


def test_yaml_without_board(elf, tmp_path, capsys):
    yaml = tmp_path / "budget.yaml"
    yaml.write_text("boards:\n  b:\n    ram: 1K\n")
    code, _, err = run(capsys, "--elf", elf, "--budget-yaml", yaml)
    assert_one_line_error(code, err, "name the board")
    yaml.write_text("default:\n  ram: 1K\n")  # a default applies to any board
    code, _, err = run(capsys, "--elf", elf, "--budget-yaml", yaml)
    assert code == 1 and "(budget.yaml default.ram=1K)" in err


@pytest.mark.parametrize("entry", [["-m", "micro_relay", "budget"], ["-m", "micro_relay.budget"]])
def test_as_a_process(elf, tmp_path, entry):
    ok = subprocess.run([sys.executable, *entry, "--elf", str(elf), "--ram", "1M"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("micro-relay budget: ")
    bad = tmp_path / "bad.elf"
    bad.write_text("text")
    failed = subprocess.run([sys.executable, *entry, "--elf", str(bad)], capture_output=True, text=True)
    assert failed.returncode == 2 and failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr
