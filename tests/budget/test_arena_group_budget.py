"""The budget check of an image with an arena group: the group's arena counts once, as the group's, with the
models that use it; each member is shown without an arena of its own, and its weights with their CRC.

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


def test_a_bad_group_spec_is_one_line():
    with pytest.raises(CompileError, match="'audio' is not GROUP:MODEL"):
        parse_groups(["audio"])
    assert parse_groups(["a:x,a:y", "b:z"]) == {"a": ["x", "y"], "b": ["z"]}
