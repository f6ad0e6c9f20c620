"""Read what a linked firmware image occupies: its sections sorted into RAM and Flash, and its symbols.

Sections are classified the way Zephyr's footprint tools do (scripts/footprint/size_report):
- NOBITS (bss, noinit): RAM only, nothing to store;
- allocated and executable (vectors, text): Flash;
- allocated and writable (data): RAM and Flash, since the initial values are stored in flash and copied to
  RAM at boot;
- any other allocated section (rodata, constant weights, init tables): Flash.
Sections that are not allocated (debug information, symbol and string tables, comments) occupy neither.
size_report applies the flag rules to PROGBITS sections only; here they apply to every allocated section
type (INIT_ARRAY, ARM.exidx, NOTE, ...), since those are loaded too.

A symbol takes the class of the section it is defined in. Symbols are what lets the judge attribute part
of the image to a model; a stripped image has none, and the judge then reports totals only.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError, ELFParseError
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from ..errors import CompileError

RAM = "ram"
FLASH = "flash"


@dataclass(frozen=True)
class Section:
    name: str
    size: int
    ram: bool
    flash: bool
    address: int = 0  # where it runs (sh_addr): what places it in a named memory region (regions.py)


@dataclass(frozen=True)
class Symbol:
    name: str
    size: int
    is_code: bool  # a function (STT_FUNC); anything else sized is data
    section: str
    ram: bool
    flash: bool
    file_offset: int | None = None  # where its bytes are in the file; None in a NOBITS section


def classify(sh_type: str, sh_flags: int) -> tuple[bool, bool]:
    """(in RAM, in Flash) for a section of this type and these flags."""
    if not sh_flags & SH_FLAGS.SHF_ALLOC:
        return False, False
    if sh_type == "SHT_NOBITS":
        return True, False
    if sh_flags & SH_FLAGS.SHF_EXECINSTR:
        return False, True
    if sh_flags & SH_FLAGS.SHF_WRITE:
        return True, True
    return False, True


class ElfImage:
    """The sections and sized symbols of one ELF file, read once with pyelftools.

    Raises CompileError (one line: what and which file) when the file is missing or is not a readable ELF.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            with open(self.path, "rb") as handle:
                self._read(ELFFile(handle))
        except FileNotFoundError:
            raise CompileError("ELF file not found", str(self.path)) from None
        except IsADirectoryError:
            raise CompileError("expected an ELF file, got a directory", str(self.path)) from None
        except OSError as exc:
            raise CompileError(f"cannot read ELF file: {exc.strerror}", str(self.path)) from None
        except (ELFError, ELFParseError, struct.error) as exc:
            raise CompileError(f"not a readable ELF file: {_first_line(exc)}", str(self.path)) from None

    def _read(self, elf: ELFFile) -> None:
        self.machine: str = elf["e_machine"]
        self.elf_type: str = elf["e_type"]
        sections: list[Section] = []
        by_index: dict[int, Section] = {}
        self._file_base: dict[int, int] = {}  # section index -> file offset of its address 0 (PROGBITS only)
        symtab = None
        for index, section in enumerate(elf.iter_sections()):
            ram, flash = classify(section["sh_type"], section["sh_flags"])
            entry = Section(section.name, section["sh_size"], ram, flash, section["sh_addr"])
            by_index[index] = entry
            if section["sh_type"] != "SHT_NOBITS":
                self._file_base[index] = section["sh_offset"] - section["sh_addr"]
            if section["sh_size"] and (ram or flash):
                sections.append(entry)
            if isinstance(section, SymbolTableSection) and section.name == ".symtab":
                symtab = section
        self.sections: tuple[Section, ...] = tuple(sections)
        self.symbols: tuple[Symbol, ...] | None = None if symtab is None else self._symbols(symtab, by_index)

    def _symbols(self, symtab: SymbolTableSection, by_index: dict[int, Section]) -> tuple[Symbol, ...]:
        found: dict[tuple, Symbol] = {}
        for symbol in symtab.iter_symbols():
            kind = symbol["st_info"]["type"]
            index = symbol["st_shndx"]
            if kind not in ("STT_FUNC", "STT_OBJECT") or not symbol["st_size"] or not isinstance(index, int):
                continue
            section = by_index.get(index)
            if section is None or not (section.ram or section.flash):
                continue
            # Aliases (same place, same size) count once; the first name in the table is kept.
            key = (index, symbol["st_value"], symbol["st_size"])
            if key not in found:
                base = self._file_base.get(index)
                found[key] = Symbol(symbol.name, symbol["st_size"], kind == "STT_FUNC", section.name,
                                    section.ram, section.flash, None if base is None else base + symbol["st_value"])
        return tuple(sorted(found.values(), key=lambda s: (-s.size, s.name)))

    def symbol_bytes(self, symbol: Symbol) -> bytes | None:
        """The stored bytes of a data symbol (a constant array's values); None when it has none in the file."""
        if symbol.file_offset is None or symbol.is_code:
            return None
        with open(self.path, "rb") as handle:
            handle.seek(symbol.file_offset)
            data = handle.read(symbol.size)
        return data if len(data) == symbol.size else None

    @property
    def stripped(self) -> bool:
        return self.symbols is None

    @property
    def ram_bytes(self) -> int:
        return sum(s.size for s in self.sections if s.ram)

    @property
    def flash_bytes(self) -> int:
        return sum(s.size for s in self.sections if s.flash)

    def total(self, region: str) -> int:
        return self.ram_bytes if region == RAM else self.flash_bytes

    def region_sections(self, region: str) -> list[Section]:
        """The sections counted in RAM or Flash, largest first."""
        chosen = [s for s in self.sections if (s.ram if region == RAM else s.flash)]
        return sorted(chosen, key=lambda s: (-s.size, s.name))


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
