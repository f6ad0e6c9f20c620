"""Memory regions of their own: a second RAM bank (CCM, DTCM) for an arena, an external flash (QSPI, XIP) for
weights, each held against its own size instead of the board's RAM or Flash.

The budget YAML names them per board (or under `default`), by address and size:

    boards:
      stm32f4_disco:
        regions:
          ccm: {address: 0x10000000, size: 64K}     # the arena: --arena-section .ccm_noinit
      my_board:
        regions:
          qspi: {address: 0x90000000, size: 8M}     # the weights: --weights-section .qspi_rodata

A section whose run address (sh_addr) lies in a region counts there and not in RAM (a RAM section) or not in
Flash (a flash-only section); a writable section with initial values keeps its flash copy in Flash. The
model's share follows its symbols' sections, so an arena in CCM is no longer part of the model's RAM.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from .elf import ElfImage, Section


@dataclass(frozen=True)
class Region:
    name: str
    address: int
    size: int
    source: str  # where it was named, for the report: "budget.yaml boards.stm32f4_disco.regions.ccm"

    def holds(self, section: Section) -> bool:
        return self.address <= section.address < self.address + self.size


def place(image: ElfImage, regions) -> tuple[ElfImage, dict[str, list[Section]]]:
    """The image with the sections that lie in a region taken out of RAM/Flash, and each region's sections."""
    regions = tuple(regions)
    if not regions:
        return image, {}
    placed: dict[str, list[Section]] = {region.name: [] for region in regions}
    moved: dict[str, Section] = {}
    sections = []
    for section in image.sections:
        region = next((r for r in regions if r.holds(section)), None)
        if region is None:
            sections.append(section)
            continue
        placed[region.name].append(section)
        kept = replace(section, ram=False) if section.ram else replace(section, flash=False)
        moved[section.name] = kept
        if kept.ram or kept.flash:
            sections.append(kept)
    adjusted = copy.copy(image)
    adjusted.sections = tuple(sections)
    if image.symbols is not None:
        adjusted.symbols = tuple(_moved_symbol(symbol, moved) for symbol in image.symbols)
    return adjusted, placed


def _moved_symbol(symbol, moved: dict[str, Section]):
    section = moved.get(symbol.section)
    return symbol if section is None else replace(symbol, ram=section.ram, flash=section.flash)
