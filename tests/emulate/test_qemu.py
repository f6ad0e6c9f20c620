"""`west micro-relay qemu`: the QEMU command that runs a Zephyr build's zephyr.elf, for the boards whose Zephyr
board files name only Arm's FVP (mps2/an386 and friends). The machine and CPU names are checked against
qemu-system-arm's own lists, and the command is run on a small real ELF for mps2-an386."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from micro_relay.emulate.qemu import MACHINES, main, qemu_command


def build_folder(root, board: str, elf: bytes | None = b"\x7fELF"):
    zephyr = root / "zephyr"
    zephyr.mkdir(parents=True)
    (zephyr / ".config").write_text(f'CONFIG_BOARD="{board.split("/")[0]}"\nCONFIG_BOARD_TARGET="{board}"\n')
    if elf is not None:
        (zephyr / "zephyr.elf").write_bytes(elf)
    return root


def test_mps2_an386_runs_as_a_cortex_m4(tmp_path):
    build = build_folder(tmp_path, "mps2/an386")
    assert qemu_command(build) == ["qemu-system-arm", "-machine", "mps2-an386", "-cpu", "cortex-m4", "-nographic",
                                   "-vga", "none", "-net", "none", "-serial", "mon:stdio", "-kernel",
                                   str(build / "zephyr" / "zephyr.elf")]


def test_a_board_target_with_qualifiers_finds_its_board(tmp_path):
    build = build_folder(tmp_path, "mps2/an521/cpu0")
    assert qemu_command(build)[1:5] == ["-machine", "mps2-an521", "-cpu", "cortex-m33"]


def test_dry_run_prints_the_command_with_extra_arguments(tmp_path, capsys):
    build = build_folder(tmp_path, "mps2/an386")
    assert main(["-d", str(build), "--dry-run", "-icount", "shift=0"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith("qemu-system-arm -machine mps2-an386 -cpu cortex-m4 ") and out.endswith("-icount shift=0")


@pytest.mark.parametrize("case, board, elf, message", [
    ("no build", None, None, "error: build folder not found"),
    ("a board QEMU does not emulate", "nrf52840dk/nrf52840", b"\x7fELF", "error: QEMU does not emulate board nrf52840dk/nrf52840"),
    ("not built", "mps2/an386", None, "error: no zephyr.elf to run (build it first)"),
])
def test_bad_input_is_one_line(tmp_path, capsys, case, board, elf, message):
    build = build_folder(tmp_path, board, elf) if board else tmp_path / "missing"
    assert main(["-d", str(build)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message), err


def test_over_budget_image_is_named(tmp_path, capsys):
    build = build_folder(tmp_path, "mps2/an386", None)
    (build / "zephyr" / "zephyr.elf.over-budget").write_bytes(b"\x7fELF")
    assert main(["-d", str(build)]) == 2
    assert "no zephyr.elf to run (the image failed its budget)" in capsys.readouterr().err


def qemu():
    found = shutil.which("qemu-system-arm")
    if found is None:
        pytest.skip("qemu-system-arm is not installed")
    return found


def test_machines_and_cpus_are_qemus(tmp_path):
    machines = subprocess.run([qemu(), "-machine", "help"], capture_output=True, text=True, check=True).stdout
    cpus = subprocess.run([qemu(), "-cpu", "help"], capture_output=True, text=True, check=True).stdout
    for machine, cpu in MACHINES.values():
        assert any(line.split()[:1] == [machine] for line in machines.splitlines()), machine
        assert cpu in cpus.split(), cpu


def test_the_command_runs_an_image(tmp_path):
    """A bare-metal Cortex-M4 image that writes one line through the MPS2 UART0, then loops: the line must
    reach the terminal through the command's -serial mon:stdio."""
    gcc = shutil.which("arm-none-eabi-gcc")
    if gcc is None:
        pytest.skip("arm-none-eabi-gcc is not installed")
    qemu()
    build = build_folder(tmp_path, "mps2/an386", None)
    source = tmp_path / "uart.c"
    source.write_text(r"""
#define UART0 0x40004000u
static volatile unsigned *const data = (unsigned *)UART0, *const ctrl = (unsigned *)(UART0 + 8);
void reset(void)
{
    const char *text = "hello from mps2-an386\n";
    *ctrl = 1; /* TX enable */
    for (; *text; ++text) {
        *data = (unsigned)*text;
    }
    for (;;) {
    }
}
__attribute__((section(".vectors"), used)) const void *vectors[2] = {(void *)0x20010000, (void *)reset};
""")
    (tmp_path / "link.ld").write_text("SECTIONS { . = 0; .vectors : { KEEP(*(.vectors)) } .text : { *(.text*) "
                                      "*(.rodata*) } }\nENTRY(reset)\n")
    subprocess.run([gcc, "-mcpu=cortex-m4", "-mthumb", "-O1", "-nostdlib", "-T", str(tmp_path / "link.ld"),
                    str(source), "-o", str(build / "zephyr" / "zephyr.elf")], check=True)
    process = subprocess.Popen(qemu_command(build), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()  # the image loops forever after its line: stop QEMU then
    finally:
        process.kill()
        process.wait()
        process.stdout.close()
    assert line.strip() == "hello from mps2-an386"
