"""ElfImage: sections sorted into RAM and Flash like Zephyr's footprint tools, symbols kept with sizes."""

from __future__ import annotations

import pytest

from micro_relay.budget import ElfImage
from micro_relay.budget.elf import classify
from micro_relay.errors import CompileError

from .elfs import ARENA, NOINIT, SMALL_ARENA, STATE, WEIGHTS


@pytest.mark.parametrize("sh_type, flags, expected", [
    ("SHT_NOBITS", "WA", (True, False)),      # bss, noinit
    ("SHT_PROGBITS", "AX", (False, True)),    # text
    ("SHT_PROGBITS", "WAX", (False, True)),   # Zephyr's rom_start: executable wins, as in size_report
    ("SHT_PROGBITS", "WA", (True, True)),     # data: stored in flash, copied to RAM
    ("SHT_INIT_ARRAY", "WA", (True, True)),
    ("SHT_PROGBITS", "A", (False, True)),     # rodata
    ("SHT_ARM_EXIDX", "A", (False, True)),
    ("SHT_PROGBITS", "", (False, False)),     # debug info, comments
    ("SHT_SYMTAB", "", (False, False)),
])
def test_classify(sh_type, flags, expected):
    bits = {"W": 0x1, "A": 0x2, "X": 0x4}
    assert classify(sh_type, sum(bits[f] for f in flags)) == expected


def test_sections_of_each_kind(elf, sizes):
    image = ElfImage(elf)
    by_name = {s.name: s for s in image.sections}
    assert set(by_name) == {".text", ".rodata", ".init_array", ".data", ".bss", ".noinit"}
    assert (by_name[".bss"].ram, by_name[".bss"].flash) == (True, False)
    assert (by_name[".noinit"].ram, by_name[".noinit"].flash) == (True, False)
    assert (by_name[".data"].ram, by_name[".data"].flash) == (True, True)
    assert (by_name[".init_array"].ram, by_name[".init_array"].flash) == (True, True)
    assert (by_name[".rodata"].ram, by_name[".rodata"].flash) == (False, True)
    assert (by_name[".text"].ram, by_name[".text"].flash) == (False, True)
    for name, section in by_name.items():
        assert section.size == sizes[name], name  # the same sizes binutils reads


def test_totals_match_binutils(elf, sizes):
    image = ElfImage(elf)
    assert image.ram_bytes == sizes[".bss"] + sizes[".noinit"] + sizes[".data"] + sizes[".init_array"]
    assert image.flash_bytes == sizes[".text"] + sizes[".rodata"] + sizes[".data"] + sizes[".init_array"]
    # and with the sizes the source fixes: arenas + noinit + data + one pointer at least
    assert image.ram_bytes >= ARENA + SMALL_ARENA + NOINIT + STATE + 4


def test_symbols_keep_their_section_class(elf):
    symbols = {s.name: s for s in ElfImage(elf).symbols}
    assert symbols["tiny_arena"].size == ARENA and symbols["tiny_arena"].ram and not symbols["tiny_arena"].flash
    assert symbols["tiny_w0"].size == WEIGHTS and symbols["tiny_w0"].flash and not symbols["tiny_w0"].ram
    assert symbols["tiny_state"].ram and symbols["tiny_state"].flash
    assert symbols["tiny_invoke"].is_code and symbols["tiny_invoke"].flash
    assert not symbols["tiny_arena"].is_code


def test_stripped_image_has_totals_but_no_symbols(elf, stripped_elf):
    image, stripped = ElfImage(elf), ElfImage(stripped_elf)
    assert stripped.stripped and stripped.symbols is None
    assert (stripped.ram_bytes, stripped.flash_bytes) == (image.ram_bytes, image.flash_bytes)


def test_not_an_elf(tmp_path):
    path = tmp_path / "notes.elf"
    path.write_text("not an ELF at all\n")
    with pytest.raises(CompileError, match="not a readable ELF file") as info:
        ElfImage(path)
    assert info.value.where == str(path)


def test_truncated_elf(elf, tmp_path):
    path = tmp_path / "truncated.elf"
    path.write_bytes(elf.read_bytes()[:100])
    with pytest.raises(CompileError, match="not a readable ELF file"):
        ElfImage(path)


def test_missing_file(tmp_path):
    with pytest.raises(CompileError, match="ELF file not found"):
        ElfImage(tmp_path / "none.elf")


def test_directory(tmp_path):
    with pytest.raises(CompileError, match="directory"):
        ElfImage(tmp_path)
