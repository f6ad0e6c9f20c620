"""The budget check of an image with an arena group: the group's arena counts once, as the group's, with the
models that use it; each member is shown without an arena of its own, and its weights with their CRC. Given the
members' plans, the group's line says what separate arenas would take and what the group saves, also when the
link overflows (budget/link.py) and when the arguments come from a file, as the Zephyr module passes them.

The image is the keyword-spotting and sine examples compiled with one --arena-group, every file built for a
Cortex-M4 with arm-none-eabi-gcc and combined into one relocatable object; the sizes are read from that object's
symbols with pyelftools here, not taken from the judge.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from elftools.elf.elffile import ELFFile

from micro_relay.budget import Budget, BudgetJudge, ElfImage
from micro_relay.budget.cli import main as budget_main
from micro_relay.budget.judge import parse_groups
from micro_relay.budget.link import main as link_main
from micro_relay.cli import main
from micro_relay.errors import CompileError
from micro_relay.examples.kws_model import build_kws_model
from micro_relay.examples.sine_model import build_sine_model

from .elfs import require_gcc


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    gcc = require_gcc()
    folder = tmp_path_factory.mktemp("group_budget")
    (folder / "kws.tflite").write_bytes(build_kws_model())
    (folder / "sine.tflite").write_bytes(build_sine_model())
    out = folder / "out"
    assert main(["compile", str(folder / "kws.tflite"), str(folder / "sine.tflite"), "-o", str(out),
                 "--arena-group", "audio", "--target", "cortex-m4"]) == 0
    objects = []
    for source in sorted(out.glob("*.c")):
        obj = folder / f"{source.stem}.o"
        subprocess.run([gcc, "-mcpu=cortex-m4", "-mthumb", "-Os", "-std=c99", "-ffunction-sections",
                        "-fdata-sections", "-I", str(out), "-c", str(source), "-o", str(obj)], check=True)
        objects.append(str(obj))
    elf = folder / "all.o"
    subprocess.run([gcc, "-r", "-nostdlib", *objects, "-o", str(elf)], check=True)
    plans = {name: json.loads((out / f"{name}.plan.json").read_text()) for name in ("kws", "sine")}
    return elf, plans


def _plan_paths(elf) -> list[str]:
    return [str(elf.parent / "out" / f"{name}.plan.json") for name in ("kws", "sine")]


def _saved_text(plans) -> str:
    largest = max(p["arena_bytes"] for p in plans.values())
    separate = plans["kws"]["arena_bytes"] + plans["sine"]["arena_bytes"]
    return f"arena group audio {largest} B for kws, sine (separate arenas: {separate} B, {separate - largest} B saved)"


def _symbol_sizes(elf) -> dict[str, int]:
    with open(elf, "rb") as handle:
        return {s.name: s["st_size"] for s in ELFFile(handle).get_section_by_name(".symtab").iter_symbols()}


def test_the_group_arena_counts_once_for_its_members(image):
    elf, plans = image
    sizes = _symbol_sizes(elf)
    largest = max(p["arena_bytes"] for p in plans.values())
    assert sizes["audio_arena"] == largest and "kws_arena" not in sizes and "sine_arena" not in sizes
    judge = BudgetJudge(ElfImage(elf), Budget("test_board", None, None), groups={"audio": ["kws", "sine"]})
    assert judge.models == ["kws", "sine"]
    line = judge.verdict().lines[0]
    assert f"arena group audio {largest} B for kws, sine" in line
    assert "model kws: arena in group audio, weights" in line and "model sine: arena in group audio" in line
    for name, plan in plans.items():
        assert f"crc32 {plan['weights']['crc32']}" in line
    # RAM is the group's arena and its owner flag, nothing of the models'
    assert judge.image.ram_bytes == sizes["audio_arena"] + sizes["audio_arena_owner"]


def test_over_budget_the_group_has_its_own_line(image, capsys):
    elf, plans = image
    largest = max(p["arena_bytes"] for p in plans.values())
    code = budget_main(["--elf", str(elf), "--ram", "1K", "--arena-group", "audio:kws,audio:sine"])
    err = capsys.readouterr().err
    assert code == 1
    assert f"  arena group audio {largest} B for kws, sine: RAM {largest + 1} B: audio_arena {largest} B" in err
    assert "    arena in group audio: -" in err


def test_with_the_plans_the_group_says_what_it_saves(image, capsys):
    elf, plans = image
    plan_args = [f"--plan={path}" for path in _plan_paths(elf)]
    assert budget_main(["--elf", str(elf), "--arena-group", "audio:kws,audio:sine", *plan_args]) == 0
    line = capsys.readouterr().out
    assert _saved_text(plans) in line
    # one member's plan missing: no sum is claimed
    assert budget_main(["--elf", str(elf), "--arena-group", "audio:kws,audio:sine", plan_args[0]]) == 0
    line = capsys.readouterr().out
    assert "arena group audio" in line and "separate arenas" not in line


def test_arguments_from_a_file_one_a_line(image, tmp_path, capsys):
    """The Zephyr module's form: @FILE, one argument a line, empty values where the build has none."""
    elf, plans = image
    args = tmp_path / "budget_models.args"
    args.write_text("--model=kws,sine\n--arena-group=audio:kws,audio:sine\n"
                    + "".join(f"--plan={path}\n" for path in _plan_paths(elf)))
    assert main(["budget", "--elf", str(elf), f"@{args}"]) == 0
    assert _saved_text(plans) in capsys.readouterr().out
    args.write_text("--model=\n--arena-group=\n--plan=\n")  # an image without models
    assert main(["budget", "--elf", str(elf), f"@{args}"]) == 0
    assert "arena group" not in capsys.readouterr().out


def test_a_bad_plan_is_one_line(image, tmp_path, capsys):
    elf, _ = image
    (tmp_path / "x.plan.json").write_text('{"model": "kws"}')
    (tmp_path / "y.plan.json").write_text("{")
    for plan, said in ((tmp_path / "x.plan.json", "not a Micro Relay plan"), (tmp_path / "y.plan.json", "not JSON"),
                       (tmp_path / "none.plan.json", "cannot read the plan")):
        assert budget_main(["--elf", str(elf), "--plan", str(plan)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err and str(plan) in err and "Traceback" not in err


LINKER_SCRIPT = """
MEMORY { FLASH (rx) : ORIGIN = 0x00000000, LENGTH = 256K
         RAM (rwx)  : ORIGIN = 0x20000000, LENGTH = 4K }
ENTRY(_start)
SECTIONS {
  .text : { *(.text*) } > FLASH
  .rodata : { *(.rodata*) } > FLASH
  .data : { *(.data*) } > RAM AT > FLASH
  .bss (NOLOAD) : { *(.bss*) *(COMMON) } > RAM
}
"""


def test_a_group_over_its_ram_at_the_link(image, tmp_path, capsys):
    """The group's arena overflows a 4 KiB RAM at the link: the wrapper's report has the group and its saving."""
    elf, plans = image
    gcc = require_gcc()
    (tmp_path / "start.c").write_text('#include "kws.h"\n#include "sine.h"\n'
                                      "void _start(void) { (void)kws_invoke(); (void)sine_invoke(); for (;;) { } }\n")
    start = tmp_path / "start.o"
    subprocess.run([gcc, "-mcpu=cortex-m4", "-mthumb", "-Os", "-std=c99", "-I", str(elf.parent / "out"), "-c",
                    str(tmp_path / "start.c"), "-o", str(start)], check=True)
    (tmp_path / "x.ld").write_text(LINKER_SCRIPT)
    (tmp_path / ".config").write_text('CONFIG_BOARD_TARGET="tiny"\nCONFIG_SRAM_SIZE=4\nCONFIG_FLASH_SIZE=256\n')
    args = tmp_path / "budget_models.args"
    args.write_text("--model=kws,sine\n--arena-group=audio:kws,audio:sine\n"
                    + "".join(f"--plan={path}\n" for path in _plan_paths(elf)))
    out = tmp_path / "x.elf"
    code = link_main(["--config", str(tmp_path / ".config"), f"@{args}", "--", gcc, "-mcpu=cortex-m4", "-mthumb",
                      "-nostartfiles", "--specs=nano.specs", str(start), str(elf), f"-Wl,-T{tmp_path / 'x.ld'}",
                      "-lm", "-o", str(out)])
    err = capsys.readouterr().err
    assert code != 0 and not out.exists() and "overflowed by" in err
    assert "error: RAM over budget on tiny" in err
    assert f"  {_saved_text(plans)}: RAM " in err and "    arena in group audio: -" in err


def test_a_bad_group_spec_is_one_line():
    with pytest.raises(CompileError, match="'audio' is not GROUP:MODEL"):
        parse_groups(["audio"])
    assert parse_groups(["a:x,a:y", "b:z"]) == {"a": ["x", "y"], "b": ["z"]}
