"""Small real ELF files for the budget checker's tests, built here with arm-none-eabi-gcc.

The image has one section of each kind the checker sorts (sizes fixed by the C source, so the expected
numbers below are not read back from the code under test):

    section   type      flags  region       holds
    .text     PROGBITS  AX     Flash        tiny_invoke, tiny_input, tiny_output, mr_dense_s8, _start
    .rodata   PROGBITS  A      Flash        tiny_w0 (2048 B), other_w0 (512 B)
    .data     PROGBITS  WA     RAM + Flash  tiny_state (4 B)
    .init_array INIT_ARRAY WA  RAM + Flash  one constructor pointer (4 B)
    .bss      NOBITS    WA     RAM          tiny_arena (4096 B), tiny_small_arena (256 B)
    .noinit   NOBITS    WA     RAM          scratch (1024 B)
    .debug_*, .comment, .symtab: not allocated, counted nowhere

Two models share the image, `tiny` and `tiny_small` (a name that extends the other), so attribution by the
longest prefix is exercised.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

GCC = "arm-none-eabi-gcc"

SOURCE = r"""
unsigned char tiny_arena[4096] __attribute__((aligned(16)));
unsigned char tiny_small_arena[256] __attribute__((aligned(16)));
const signed char tiny_w0[2048] = {1, 2, 3};
const signed char tiny_small_w0[512] = {4, 5, 6};
int tiny_state = 5;
static unsigned char scratch[1024] __attribute__((section(".noinit"), used));

int mr_dense_s8(const signed char *w, const unsigned char *a, int n)
{
    int s = 0;
    for (int i = 0; i < n; ++i) {
        s += w[i] * a[i];
    }
    return s;
}

void *tiny_input(int i) { return i == 0 ? tiny_arena : 0; }
const void *tiny_output(int i) { return i == 0 ? tiny_arena + 16 : 0; }
int tiny_invoke(void) { return mr_dense_s8(tiny_w0, tiny_arena, 2048) + tiny_state + scratch[0]; }

void *tiny_small_input(int i) { return i == 0 ? tiny_small_arena : 0; }
const void *tiny_small_output(int i) { return i == 0 ? tiny_small_arena + 16 : 0; }
int tiny_small_invoke(void) { return mr_dense_s8(tiny_small_w0, tiny_small_arena, 256); }

static void init(void) __attribute__((constructor));
static void init(void) { tiny_state = 7; }

void _start(void)
{
    tiny_invoke();
    tiny_small_invoke();
    for (;;) {
    }
}
"""

LINKER_SCRIPT = """
MEMORY { FLASH (rx) : ORIGIN = 0x00000000, LENGTH = 256K
         RAM (rwx)  : ORIGIN = 0x20000000, LENGTH = 64K }
ENTRY(_start)
SECTIONS {
  .text : { *(.text*) } > FLASH
  .rodata : { *(.rodata*) } > FLASH
  .init_array : { KEEP(*(.init_array*)) } > RAM AT > FLASH
  .data : { *(.data*) } > RAM AT > FLASH
  .bss (NOLOAD) : { *(.bss*) *(COMMON) } > RAM
  .noinit (NOLOAD) : { *(.noinit*) } > RAM
}
"""

# Known from the source: the sizes of the data objects.
ARENA = 4096
SMALL_ARENA = 256
WEIGHTS = 2048
SMALL_WEIGHTS = 512
STATE = 4
NOINIT = 1024


def require_gcc() -> str:
    gcc = shutil.which(GCC)
    if gcc is None:
        pytest.skip(f"{GCC} is not installed (Debian: apt-get install gcc-arm-none-eabi)")
    return gcc


def build_elf(folder: Path, name: str = "image.elf") -> Path:
    gcc = require_gcc()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "image.c").write_text(SOURCE)
    (folder / "link.ld").write_text(LINKER_SCRIPT)
    elf = folder / name
    subprocess.run([gcc, "-mcpu=cortex-m3", "-mthumb", "-O1", "-g", "-std=c99", "-ffunction-sections",
                    "-fdata-sections", "-nostdlib", "-T", str(folder / "link.ld"), str(folder / "image.c"),
                    "-o", str(elf)], check=True)
    return elf


def section_sizes(elf: Path) -> dict[str, int]:
    """Section sizes as binutils' `size -A` reads them: an independent reader to compare with."""
    size = shutil.which("arm-none-eabi-size")
    if size is None:
        pytest.skip("arm-none-eabi-size is not installed")
    out = subprocess.run([size, "-A", str(elf)], check=True, capture_output=True, text=True).stdout
    sizes = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1].isdigit():
            sizes[fields[0]] = int(fields[1])
    return sizes


def strip(elf: Path, out: Path) -> Path:
    tool = shutil.which("arm-none-eabi-strip")
    if tool is None:
        pytest.skip("arm-none-eabi-strip is not installed")
    subprocess.run([tool, "-o", str(out), str(elf)], check=True)
    return out
