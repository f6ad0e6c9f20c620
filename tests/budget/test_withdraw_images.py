"""No stale images: over budget with --withdraw-images (as the Zephyr module runs the check), the images made
from the ELF are removed and the ELF is renamed NAME.elf.over-budget; within budget, nothing is touched.

The build folder is laid out as Zephyr's: zephyr/zephyr.elf (a real ELF, tests/budget/elfs.py) beside the
hex, bin, uf2 and exe images a build makes from it, and files that are not images (map, .config).
"""

from __future__ import annotations

import shutil

from micro_relay.cli import main

IMAGES = ("zephyr.hex", "zephyr.bin", "zephyr.uf2", "zephyr.exe", "zephyr.signed.hex")
NOT_IMAGES = ("zephyr.map", ".config", "zephyr.lst")


def build_folder(elf, root):
    zephyr = root / "zephyr"
    zephyr.mkdir(parents=True)
    shutil.copy(elf, zephyr / "zephyr.elf")
    for name in IMAGES + NOT_IMAGES:
        (zephyr / name).write_text(name)
    return zephyr


def test_over_budget_leaves_nothing_to_flash(elf, tmp_path, capsys):
    zephyr = build_folder(elf, tmp_path)
    code = main(["budget", "--elf", str(zephyr / "zephyr.elf"), "--ram", "1K", "--withdraw-images"])
    err = capsys.readouterr().err
    assert code == 1
    left = sorted(p.name for p in zephyr.iterdir())
    assert left == sorted(NOT_IMAGES + ("zephyr.elf.over-budget",))
    assert (zephyr / "zephyr.elf.over-budget").read_bytes() == elf.read_bytes()
    last = err.splitlines()[-1]
    assert last.startswith("  nothing left to flash: removed ") and "zephyr.elf renamed zephyr.elf.over-budget" in last
    assert all(name in last for name in IMAGES)


def test_the_renamed_elf_can_still_be_checked(elf, tmp_path, capsys):
    zephyr = build_folder(elf, tmp_path)
    main(["budget", "--elf", str(zephyr / "zephyr.elf"), "--ram", "1K", "--withdraw-images"])
    capsys.readouterr()
    assert main(["budget", "--elf", str(zephyr / "zephyr.elf.over-budget"), "--ram", "1M"]) == 0


def test_within_budget_touches_nothing(elf, tmp_path, capsys):
    zephyr = build_folder(elf, tmp_path)
    before = sorted(p.name for p in zephyr.iterdir())
    assert main(["budget", "--elf", str(zephyr / "zephyr.elf"), "--ram", "1M", "--withdraw-images"]) == 0
    assert sorted(p.name for p in zephyr.iterdir()) == before


def test_without_the_option_the_images_stay(elf, tmp_path, capsys):
    zephyr = build_folder(elf, tmp_path)
    before = sorted(p.name for p in zephyr.iterdir())
    assert main(["budget", "--elf", str(zephyr / "zephyr.elf"), "--ram", "1K"]) == 1
    assert sorted(p.name for p in zephyr.iterdir()) == before
