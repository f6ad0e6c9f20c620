"""What the runner image occupies, as a whole and for the model's own objects.

Whole image: sections sorted into Flash and RAM by micro_relay.budget.elf (the Zephyr footprint rules:
text and rodata in Flash, bss in RAM, initialized data in both since its initial values sit in Flash).
Model: the symbols of the generated NAME_* objects and the runtime's mr_* functions (and CMSIS-NN's arm_*
ones with --kernels cmsis-nn), plus the local symbols (static helpers, weights, the arena) defined in NAME.c,
mr_*.c and arm_*.c, read from the ELF symbol table.
The stack is not a section: the runner reports its measured peak separately.
"""

from __future__ import annotations

import re
from pathlib import Path

from elftools.elf.elffile import ELFFile

from ..budget.elf import ElfImage, classify

_ARCHIVE = re.compile(r"^\S*?(lib[\w+-]+)\.a\(")
_LOADED = (".text", ".rodata", ".data", ".bss")


def image_sizes(elf_path: Path, name: str) -> dict[str, int]:
    image = ElfImage(elf_path)
    sizes = {"flash_bytes": image.flash_bytes, "ram_bytes": image.ram_bytes}
    sizes.update(model_sizes(elf_path, name))
    return sizes


# Kernel code: our runtime's mr_* functions, and CMSIS-NN's arm_* ones when a model uses that backend.
_RUNTIME_PREFIXES = ("mr_", "arm_")


def _is_runtime_file(file_name: str) -> bool:
    return file_name.startswith(_RUNTIME_PREFIXES) and file_name.endswith(".c")


def model_sizes(elf_path: Path, name: str) -> dict[str, int]:
    """model_flash_bytes, model_ram_bytes and runtime_code_bytes (the mr_* kernel code alone, plus CMSIS-NN's
    arm_* code when linked)."""
    flash = ram = runtime_code = 0
    seen: set[tuple[int, int, int]] = set()
    with open(elf_path, "rb") as handle:
        elf = ELFFile(handle)
        sections = list(elf.iter_sections())
        symtab = elf.get_section_by_name(".symtab")
        current_file = ""
        for symbol in symtab.iter_symbols() if symtab is not None else ():
            kind, bind = symbol["st_info"]["type"], symbol["st_info"]["bind"]
            if kind == "STT_FILE":  # local symbols follow the file they were defined in
                current_file = Path(symbol.name).name
                continue
            index, size = symbol["st_shndx"], symbol["st_size"]
            if kind not in ("STT_FUNC", "STT_OBJECT") or not size or not isinstance(index, int):
                continue
            local_file = current_file if bind == "STB_LOCAL" else ""
            runtime = symbol.name.startswith(_RUNTIME_PREFIXES) or _is_runtime_file(local_file)
            generated = symbol.name.startswith(f"{name}_") or local_file == f"{name}.c"
            key = (index, symbol["st_value"], size)
            if not (runtime or generated) or key in seen:
                continue
            seen.add(key)
            section = sections[index]
            in_ram, in_flash = classify(section["sh_type"], section["sh_flags"])
            flash += size if in_flash else 0
            ram += size if in_ram else 0
            if runtime and kind == "STT_FUNC":
                runtime_code += size
    return {"model_flash_bytes": flash, "model_ram_bytes": ram, "runtime_code_bytes": runtime_code}


def linked_libraries(map_path: Path) -> list[str]:
    """Archives (libgcc, libm) that left code or data in the image, read from the link map.

    Only input sections the linker kept count: an object can pull an archive member in for a function
    --gc-sections then drops (a float kernel in the same file as the int8 one the model calls).
    """
    names: set[str] = set()
    in_map, section = False, ""
    for line in map_path.read_text(errors="replace").splitlines():
        if line.startswith("Linker script and memory map"):
            in_map = True
            continue
        parts = line.split()
        if not in_map or not parts:
            continue
        if line.startswith(" ."):  # " .text.name 0xADDR 0xSIZE file", or the name alone when it is long
            section, parts = parts[0], parts[1:]
        elif not line.startswith("   ") or not parts[0].startswith("0x"):
            section = ""
            continue
        if len(parts) < 3 or not section.startswith(_LOADED) or not parts[1].startswith("0x"):
            continue
        match = _ARCHIVE.match(parts[2])
        if match and int(parts[1], 16) > 0:
            names.add(match.group(1))
    return sorted(names)
