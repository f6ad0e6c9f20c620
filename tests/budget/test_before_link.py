"""The budget check before the link: a model that alone does not fit the board stops `micro-relay compile`
with the breakdown and a hint (exit status 1, no file written), instead of a linker's region overflow.

The figures the report gives are compared with what arm-none-eabi-gcc makes of the same model within budget
(the arena symbol's size and the weights symbols'), not with the compiler's own numbers.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from micro_relay.budget import Budget, BudgetJudge, ElfImage
from micro_relay.cli import main
from micro_relay.examples.kws_model import build_kws_model

from .elfs import require_gcc

BOARD = "qemu_cortex_m3/ti_lm3s6965"


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("before_link") / "kws.tflite"
    path.write_bytes(build_kws_model())
    return path


@pytest.fixture(scope="module")
def measured(model, tmp_path_factory):
    """(arena, weights) bytes of the model as the C compiler lays it out, compiled within a budget. No
    --ram-budget: that would also choose the schedule (layer by layer, the larger arena, when it fits), and the
    compiles below have none either."""
    gcc = require_gcc()
    out = tmp_path_factory.mktemp("within") / "out"
    assert main(["compile", str(model), "-o", str(out), "--name", "kws", "--target", "cortex-m3",
                 "--flash-budget", "256K"]) == 0
    obj = out.parent / "kws.o"
    subprocess.run([gcc, "-mcpu=cortex-m3", "-mthumb", "-Os", "-std=c99", "-I", str(out), "-c", str(out / "kws.c"),
                    "-o", str(obj)], check=True)
    share = BudgetJudge(ElfImage(obj), Budget(None, None, None), ["kws"]).shares["kws"]
    return share.bytes("arena"), share.bytes("weights")


def dotconfig(folder, sram_kb: int, flash_kb: int):
    path = folder / ".config"
    path.write_text(f'CONFIG_BOARD_TARGET="{BOARD}"\nCONFIG_SRAM_SIZE={sram_kb}\nCONFIG_FLASH_SIZE={flash_kb}\n'
                    "CONFIG_MICRO_RELAY_RAM_BUDGET_KB=0\n")
    return path


def compile_against(model, out, *options):
    return main(["compile", str(model), "-o", str(out), "--name", "kws", "--target", "cortex-m3", *options])


def test_flash_too_small_for_the_weights(model, measured, tmp_path, capsys):
    arena, weights = measured
    flash_kb = weights // 1024 - 4
    out = tmp_path / "out"
    assert compile_against(model, out, "--budget-config", str(dotconfig(tmp_path, 64, flash_kb))) == 1
    assert not out.exists()  # no partial output: the build stops before the C exists
    lines = capsys.readouterr().err.splitlines()
    budget = flash_kb * 1024
    assert lines[0] == (f"error: Flash over budget on {BOARD} before linking: model kws needs {weights} B, budget "
                        f"{budget} B (CONFIG_FLASH_SIZE={flash_kb}), {weights - budget} B over ({model})")
    assert lines[1].startswith(f"  model kws: RAM {arena} B, Flash {weights} B ")
    # the arena line says what the compiler reached and at what cost: kws's depthwise-separable pairs run row by
    # row, patches and their recomputed MACs within --max-recompute
    assert re.fullmatch(rf"    arena {arena} B, the smallest reachable: \d chain\(s\) of convolutions row by row, \d "
                        rf"of them in patches, [\d,]+ extra MACs( \([\d.]+% of the model's\))? \(layer by layer \d+ B; "
                        rf"--max-recompute allows more patches\)", lines[2]), lines[2]
    assert re.fullmatch(rf"    weights {weights} B \(weights \d+ B, biases \d+ B, requantization \d+ B\)", lines[3])
    assert lines[4].startswith("  hint: Flash: ") and "int8" in lines[4] and "more flash" in lines[4]
    assert len(lines) == 5  # RAM fits: one error line, one hint


def test_ram_too_small_for_the_arena(model, measured, tmp_path, capsys):
    arena, _ = measured
    out = tmp_path / "out"
    assert compile_against(model, out, "--budget-config", str(dotconfig(tmp_path, arena // 1024, 256))) == 1
    err = capsys.readouterr().err
    budget = arena // 1024 * 1024
    assert err.startswith(f"error: RAM over budget on {BOARD} before linking: model kws needs {arena} B, budget "
                          f"{budget} B (CONFIG_SRAM_SIZE={arena // 1024}), {arena - budget} B over")
    assert "  hint: RAM: " in err and "--target generic" in err and "hint: Flash" not in err
    assert not out.exists()


def test_the_tightest_source_is_named(model, measured, tmp_path, capsys):
    arena, _ = measured
    yaml = tmp_path / "budget.yaml"
    yaml.write_text("boards:\n  qemu_cortex_m3:\n    ram: 8K\n")
    assert compile_against(model, tmp_path / "out", "--budget-config", str(dotconfig(tmp_path, 64, 256)),
                           "--budget-yaml", str(yaml), "--ram-budget", "12K") == 1
    first = capsys.readouterr().err.splitlines()[0]
    assert f"needs {arena} B, budget 8192 B (budget.yaml boards.qemu_cortex_m3.ram=8K), {arena - 8192} B over" in first


def test_option_spelled_as_given(model, tmp_path, capsys):
    assert compile_against(model, tmp_path / "out", "--ram-budget", "1K") == 1
    assert "budget 1024 B (--ram-budget 1K)" in capsys.readouterr().err


def test_within_budget_writes_the_model(model, tmp_path):
    out = tmp_path / "out"
    assert compile_against(model, out, "--budget-config", str(dotconfig(tmp_path, 64, 256))) == 0
    assert (out / "kws.c").is_file() and (out / "kws.plan.json").is_file()


def test_no_budget_no_check(model, tmp_path):
    assert compile_against(model, tmp_path / "out") == 0


def test_the_zephyr_validator_accepts_the_wide_model_on_qemu_cortex_m3(tmp_path, capsys):
    """tests/zephyr/too_large's validator, on what the generator prints for that build's .config."""
    import importlib.util
    from pathlib import Path

    from micro_relay.examples.wide_model import build_wide_model

    spec = importlib.util.spec_from_file_location(
        "validate_fit_output", Path(__file__).parents[1] / "zephyr" / "too_large" / "validate_fit_output.py")
    validator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(validator)
    model = tmp_path / "wide.tflite"
    model.write_bytes(build_wide_model())
    assert main(["compile", str(model), "-o", str(tmp_path / "out"), "--target", "cortex-m3",
                 "--budget-config", str(dotconfig(tmp_path, 64, 256))]) == 1
    log = capsys.readouterr().err
    assert validator.check(log, BOARD, 256) == []
    assert validator.check(log, BOARD, 512) != []  # the validator can fail


def test_snug_fits_alone_so_the_check_lets_it_through(tmp_path):
    """The `snug` model's 250 KiB of weights fit qemu_cortex_m3's 256 KiB: the failure is the link's to report."""
    from micro_relay.examples.wide_model import SNUG_UNITS, build_wide_model

    model = tmp_path / "snug.tflite"
    model.write_bytes(build_wide_model(units=SNUG_UNITS))
    assert main(["compile", str(model), "-o", str(tmp_path / "out"), "--target", "cortex-m3",
                 "--budget-config", str(dotconfig(tmp_path, 64, 256))]) == 0


def test_a_part_in_a_section_of_its_own_is_left_to_the_link(model, tmp_path):
    """The arena in a section the linker script may put in another RAM bank: not held against SRAM here."""
    config = str(dotconfig(tmp_path, 4, 256))
    assert compile_against(model, tmp_path / "a", "--budget-config", config) == 1
    assert compile_against(model, tmp_path / "b", "--budget-config", config, "--arena-section", ".ccm_noinit") == 0
