"""A link that overflows a memory region still gets the budget breakdown (budget/link.py, the Zephyr module's
linker launcher): the keyword-spotting model with the runtime's kernels, linked by arm-none-eabi-gcc for a
Cortex-M3 into a 24 KiB FLASH region it does not fit.

The linker's own error comes first and its exit status is kept; the report that follows names the board and
budget of the build's .config and the model's share, measured on the image linked into a wider region (then
deleted); the figures are checked against the same image linked into a region large enough, measured by
binutils' `size`, not by the code under test.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from micro_relay.budget.link import main, overflowed_regions, widen_regions
from micro_relay.compiler import compile_file
from micro_relay.examples.kws_model import build_kws_model

from .elfs import require_gcc, section_sizes

BOARD = "qemu_cortex_m3/ti_lm3s6965"
START = r"""
#include "kws.h"
void _start(void) { (void)kws_invoke(); for (;;) { } }
void _exit(int status) { (void)status; for (;;) { } }
"""


def linker_script(flash_kb: int) -> str:
    return f"""
MEMORY {{ FLASH (rx) : ORIGIN = 0x00000000, LENGTH = {flash_kb}K
         RAM (rwx)  : ORIGIN = 0x20000000, LENGTH = 64K }}
ENTRY(_start)
SECTIONS {{
  .text : {{ *(.text*) }} > FLASH
  .rodata : {{ *(.rodata*) }} > FLASH
  .data : {{ *(.data*) }} > RAM AT > FLASH
  .bss (NOLOAD) : {{ *(.bss*) *(COMMON) }} > RAM
}}
"""


@pytest.fixture(scope="module")
def firmware(tmp_path_factory):
    """(folder, link command without -T and -o): the model, the runtime and a start file."""
    gcc = require_gcc()
    folder = tmp_path_factory.mktemp("link_overflow")
    model = folder / "kws.tflite"
    model.write_bytes(build_kws_model())
    out = folder / "out"
    compile_file(model, out, name="kws", target="cortex-m3")
    (folder / "start.c").write_text(START)
    sources = [folder / "start.c", *sorted(out.glob("*.c"))]  # kws.c and the kernels mr_*.c
    flags = ["-mcpu=cortex-m3", "-mthumb", "-Os", "-std=c99", "-ffunction-sections", "-fdata-sections"]
    objects = [str(folder / f"{source.stem}.o") for source in sources]
    for source, obj in zip(sources, objects):  # compiled once; each test links
        subprocess.run([gcc, *flags, "-I", str(out), "-c", str(source), "-o", obj], check=True)
    return folder, [gcc, *flags, "-Wl,--gc-sections", "-nostartfiles", "--specs=nano.specs", *objects, "-lm"]


def link(folder, command, flash_kb, capsys, name):
    script = folder / f"{name}.ld"
    script.write_text(linker_script(flash_kb))
    config = folder / ".config"
    config.write_text(f'CONFIG_BOARD_TARGET="{BOARD}"\nCONFIG_SRAM_SIZE=64\nCONFIG_FLASH_SIZE={flash_kb}\n')
    elf = folder / f"{name}.elf"
    code = main(["--config", str(config), "--", *command, f"-Wl,-T{script}", "-o", str(elf)])
    captured = capsys.readouterr()
    return code, captured.err, elf


def test_within_its_regions_the_link_is_untouched(firmware, capsys):
    folder, command = firmware
    code, err, elf = link(folder, command, 256, capsys, "fits")
    assert code == 0 and elf.is_file() and "micro-relay" not in err


def test_overflow_gets_the_breakdown(firmware, capsys):
    folder, command = firmware
    _, _, fits = link(folder, command, 256, capsys, "measure")
    sizes = section_sizes(fits)
    flash = sizes[".text"] + sizes[".rodata"] + sizes.get(".data", 0)
    code, err, elf = link(folder, command, 24, capsys, "overflows")
    assert code != 0 and not elf.exists()  # the linker's verdict stands, and its output is gone
    linker = err.index("overflowed by")
    report = err[err.index("error: Flash over budget"):]
    assert linker < err.index("error: Flash over budget")  # the linker's own error first
    budget = 24 * 1024
    assert report.splitlines()[0] == (f"error: Flash over budget on {BOARD}: {flash} B used, budget {budget} B "
                                      f"(CONFIG_FLASH_SIZE=24), {flash - budget} B over ({elf}, linked with more "
                                      "FLASH to be measured, deleted)")
    assert re.search(r"^    weights \d+ B \(weights 22016 B, biases \d+ B, requantization \d+ B\) "
                     r"crc32 0x[0-9a-f]{8}: kws_w", report, re.MULTILINE)
    assert re.search(r"^  runtime \(mr_\*\): .*mr_conv2d", report, re.MULTILINE)
    assert "  hint: Flash: " in report and "Traceback" not in err
    assert not list(folder.glob("micro-relay-spill-*"))


def test_other_link_errors_pass_through(firmware, capsys, tmp_path):
    _, command = firmware
    (tmp_path / "undefined.c").write_text("void missing(void); void _start(void) { missing(); }\n")
    script = tmp_path / "x.ld"
    script.write_text(linker_script(256))
    gcc = command[0]
    code = main(["--", gcc, "-mcpu=cortex-m3", "-mthumb", "-nostdlib", str(tmp_path / "undefined.c"),
                 f"-Wl,-T{script}", "-o", str(tmp_path / "x.elf")])
    err = capsys.readouterr().err
    assert code != 0 and "undefined reference to `missing'" in err and "micro-relay" not in err


def test_region_names_from_ld_messages():
    output = ("ld.bfd: zephyr_pre0.elf section `rodata' will not fit in region `FLASH'\n"
              "ld.bfd: region `FLASH' overflowed by 6506 bytes\nld.bfd: region `RAM' overflowed by 27552 bytes\n")
    assert overflowed_regions(output) == ["FLASH", "RAM"]


def test_only_the_overflowed_region_is_widened():
    script = "MEMORY\n{\n    FLASH (rx) : ORIGIN = 0x0, LENGTH = (256 * 1K - 0)\n    RAM (wx) : ORIGIN = 0x20000000, LENGTH = (64 * 1K)\n    IDT_LIST (wx) : ORIGIN = 0xFFFF7FFF, LENGTH = 32K\n}\nSECTIONS { }\n"
    widened = widen_regions(script, ["FLASH"])
    assert "FLASH (rx) : ORIGIN = 0x0, LENGTH = ((256 * 1K - 0)) + 0x1000000" in widened
    assert "RAM (wx) : ORIGIN = 0x20000000, LENGTH = (64 * 1K)\n" in widened and "LENGTH = 32K\n" in widened


def test_through_cmakes_linker_launcher(firmware, tmp_path):
    """The way the Zephyr module hooks it in: CMake's C_LINKER_LAUNCHER on the executable (Ninja), with the
    linker script given as Zephyr gives it (-Wl,-T followed by the script)."""
    import shutil
    import sys

    if shutil.which("cmake") is None or shutil.which("ninja") is None:
        pytest.skip("cmake or ninja is not installed")
    _, command = firmware
    objects = [arg for arg in command if arg.endswith(".o")]
    script = tmp_path / "linker.cmd"
    script.write_text(linker_script(24))
    config = tmp_path / ".config"
    config.write_text(f'CONFIG_BOARD_TARGET="{BOARD}"\nCONFIG_SRAM_SIZE=64\nCONFIG_FLASH_SIZE=24\n')
    scripts = Path(__file__).resolve().parents[2] / "scripts"
    (tmp_path / "CMakeLists.txt").write_text(f"""
cmake_minimum_required(VERSION 3.21)
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_C_COMPILER {command[0]})
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
project(firmware C)
add_executable(zephyr_pre0 {' '.join(objects)})
set_target_properties(zephyr_pre0 PROPERTIES LINKER_LANGUAGE C SUFFIX .elf)
target_link_options(zephyr_pre0 PRIVATE -mcpu=cortex-m3 -mthumb -Wl,--gc-sections -nostartfiles --specs=nano.specs
                    -Wl,-T {script})
target_link_libraries(zephyr_pre0 m)
set_property(TARGET zephyr_pre0 PROPERTY C_LINKER_LAUNCHER
             {shutil.which("cmake")} -E env PYTHONPATH={scripts} {sys.executable} -m micro_relay.budget.link
             --config {config} --)
""")
    build = tmp_path / "build"
    subprocess.run(["cmake", "-G", "Ninja", "-S", str(tmp_path), "-B", str(build)], check=True, capture_output=True)
    done = subprocess.run(["ninja", "-C", str(build)], capture_output=True, text=True)
    output = done.stdout + done.stderr
    assert done.returncode != 0 and "region `FLASH' overflowed by" in output, output[-3000:]
    assert f"error: Flash over budget on {BOARD}: " in output and "  model kws: RAM " in output, output[-3000:]
    assert not (build / "zephyr_pre0.elf").exists()


@pytest.mark.parametrize("form", ["-Wl,-T {}", "-Wl,-T{}", "-Wl,-T,{}", "-T {}", "-T{}"])
def test_linker_script_forms(tmp_path, form):
    """Zephyr passes `-Wl,-T` and the script as two arguments (cmake/linker/ld/target.cmake: ${TOPT} then the
    script); other builds use the one-argument forms."""
    from micro_relay.budget.link import _linker_script_argument

    script = tmp_path / "linker_zephyr_pre0.cmd"
    script.write_text("MEMORY { }\n")
    command = ["gcc", "a.o", *form.format(script).split(), "-o", "zephyr_pre0.elf"]
    index, path = _linker_script_argument(command)
    assert path == str(script) and str(script) in command[index]
