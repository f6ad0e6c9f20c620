"""Memory regions of their own (budget/regions.py) and the weights section (--weights-section): the
keyword-spotting model with its arena in a CCM (.ccm_noinit) and its weights in an external flash
(.qspi_rodata), linked by arm-none-eabi-gcc with a linker script that has both regions.

Each region is held against its own size; RAM and Flash no longer count what lies there. The expected
figures are binutils' `size -A` of the linked image, not the checker's own.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from micro_relay.budget import BudgetJudge, ElfImage, resolve_budget
from micro_relay.examples.kws_model import build_kws_model

from .elfs import require_gcc, section_sizes

BOARD = "stm32f4_disco"
LINKER_SCRIPT = """
MEMORY { FLASH (rx) : ORIGIN = 0x08000000, LENGTH = 1024K
         RAM (rwx)  : ORIGIN = 0x20000000, LENGTH = 128K
         CCM (rw)   : ORIGIN = 0x10000000, LENGTH = 64K
         QSPI (rx)  : ORIGIN = 0x90000000, LENGTH = 8M }
ENTRY(_start)
SECTIONS {
  .text : { *(.text*) } > FLASH
  .rodata : { *(.rodata*) } > FLASH
  .data : { *(.data*) } > RAM AT > FLASH
  .bss (NOLOAD) : { *(.bss*) *(COMMON) } > RAM
  .ccm_noinit (NOLOAD) : { *(.ccm_noinit*) } > CCM
  .qspi_rodata : { *(.qspi_rodata*) } > QSPI
}
"""
START = r"""
#include "kws.h"
void _start(void) { (void)kws_invoke(); for (;;) { } }
void _exit(int status) { (void)status; for (;;) { } }
"""


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    gcc = require_gcc()
    folder = tmp_path_factory.mktemp("regions")
    model = folder / "kws.tflite"
    model.write_bytes(build_kws_model())
    out = folder / "out"
    from micro_relay.cli import main  # the sections through the command line, as micro_relay_model() passes them

    assert main(["compile", str(model), "-o", str(out), "--name", "kws", "--target", "cortex-m4",
                 "--arena-section", ".ccm_noinit", "--weights-section", ".qspi_rodata"]) == 0
    (folder / "start.c").write_text(START)
    (folder / "link.ld").write_text(LINKER_SCRIPT)
    elf = folder / "image.elf"
    subprocess.run([gcc, "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=soft", "-Os", "-std=c99", "-ffunction-sections",
                    "-fdata-sections", "-Wl,--gc-sections", "-nostartfiles", "--specs=nano.specs", "-I", str(out),
                    str(folder / "start.c"), *map(str, sorted(out.glob("*.c"))), "-lm", "-T", str(folder / "link.ld"),
                    "-o", str(elf)], check=True)
    plan = json.loads((out / "kws.plan.json").read_text())
    yaml = folder / "budget.yaml"
    yaml.write_text(f"boards:\n  {BOARD}:\n    ram: 128K\n    flash: 1M\n    regions:\n"
                    "      ccm: {address: 0x10000000, size: 64K}\n      qspi: {address: 0x90000000, size: 8M}\n")
    return elf, plan, yaml, folder, out


def test_the_plan_and_the_c_name_the_weights_section(image):
    _, plan, _, _, out = image
    assert plan["weights"]["section"] == ".qspi_rodata"
    text = (out / "kws.c").read_text()
    # every constant array; the table of their addresses NAME_verify() reads stays in .rodata, with the
    # parameter structs
    arrays = [line for line in text.splitlines()
              if line.startswith("static const") and "[" in line and "_constant_spans[]" not in line]
    assert arrays and text.count('MR_SECTION(".qspi_rodata")') == len(arrays)


def test_each_region_against_its_own_size(image):
    elf, plan, yaml, _, _ = image
    sizes = section_sizes(elf)
    assert sizes[".ccm_noinit"] == plan["arena_bytes"] and sizes[".qspi_rodata"] >= plan["weights_bytes"]
    judge = BudgetJudge(ElfImage(elf), resolve_budget(BOARD, {}, yaml))
    verdict = judge.verdict()
    assert verdict.ok, verdict.text
    line = verdict.lines[0]
    ram = sizes.get(".bss", 0) + sizes.get(".data", 0)
    flash = sizes[".text"] + sizes[".rodata"] + sizes.get(".data", 0)
    assert f"RAM {ram} B of 131072 B" in line and f"Flash {flash} B of 1048576 B" in line
    assert f"ccm {sizes['.ccm_noinit']} B of 65536 B" in line and f"qspi {sizes['.qspi_rodata']} B of 8388608 B" in line
    # the model's weights are still its weights, wherever they are
    assert judge.shares["kws"].bytes("weights") == plan["weights_bytes"]


def test_a_region_over_its_size_fails(image, tmp_path):
    elf, plan, _, _, _ = image
    yaml = tmp_path / "budget.yaml"
    yaml.write_text(f"boards:\n  {BOARD}:\n    regions:\n      ccm: {{address: 0x10000000, size: 8K}}\n")
    verdict = BudgetJudge(ElfImage(elf), resolve_budget(BOARD, {}, yaml)).verdict()
    assert not verdict.ok
    arena = plan["arena_bytes"]
    assert verdict.lines[0] == (f"error: region ccm over budget on {BOARD}: {arena} B used, size 8192 B "
                                f"(budget.yaml boards.{BOARD}.regions.ccm.size=8K), {arena - 8192} B over ({elf})")
    assert any(line.startswith(f"  region ccm {arena} B of 8192 B") and "OVER" in line for line in verdict.lines)


def test_without_regions_ram_and_flash_count_everything(image):
    elf, _, _, _, _ = image
    sizes = section_sizes(elf)
    line = BudgetJudge(ElfImage(elf), resolve_budget(BOARD, {}, None, "1M", "16M")).verdict().lines[0]
    ram = sizes.get(".bss", 0) + sizes.get(".data", 0) + sizes[".ccm_noinit"]
    assert f"RAM {ram} B of " in line


def test_bad_weights_section_is_one_line(image, capsys, tmp_path):
    from micro_relay.cli import main

    _, _, _, folder, _ = image
    assert main(["compile", str(folder / "kws.tflite"), "-o", str(tmp_path / "o"), "--weights-section", "a b"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: section name 'a b' is not a linker section name") \
        and err[0].endswith("(--weights-section)")
