"""BudgetJudge: pass with one line, fail naming board, budget, total, excess and each model's share."""

from __future__ import annotations

import zlib

from micro_relay.budget import Budget, BudgetJudge, ElfImage, Limit

from .elfs import ARENA, SMALL_ARENA, SMALL_WEIGHTS, STATE, WEIGHTS


def budget(ram=None, flash=None, board="test_board"):
    return Budget(board, ram and Limit(ram, "test RAM"), flash and Limit(flash, "test Flash"))


def test_models_found_and_attributed_by_longest_prefix(elf):
    judge = BudgetJudge(ElfImage(elf), budget())
    assert judge.models == ["tiny", "tiny_small"]
    tiny, small = judge.shares["tiny"], judge.shares["tiny_small"]
    assert tiny.bytes("arena") == ARENA and small.bytes("arena") == SMALL_ARENA
    assert tiny.bytes("weights") == WEIGHTS and small.bytes("weights") == SMALL_WEIGHTS
    assert tiny.bytes("data") == STATE
    assert {s.name for s in tiny.parts["code"]} == {"tiny_invoke", "tiny_input", "tiny_output"}
    assert {s.name for s in small.parts["code"]} == {"tiny_small_invoke", "tiny_small_input", "tiny_small_output"}
    assert [s.name for s in judge.runtime.parts["code"]] == ["mr_dense_s8"]


def test_named_models_only(elf):
    judge = BudgetJudge(ElfImage(elf), budget(), models=["tiny_small"])
    assert judge.models == ["tiny_small"]
    assert judge.shares["tiny_small"].bytes("arena") == SMALL_ARENA


def test_under_budget_is_one_line(elf):
    image = ElfImage(elf)
    verdict = BudgetJudge(image, budget(64 * 1024, 256 * 1024)).verdict()
    assert verdict.ok and len(verdict.lines) == 1
    line = verdict.lines[0]
    assert line.startswith("micro-relay budget: test_board: ")
    assert f"RAM {image.ram_bytes} B of 65536 B" in line and f"Flash {image.flash_bytes} B of 262144 B" in line
    assert f"model tiny: arena {ARENA} B, data {STATE} B, weights {WEIGHTS} B" in line


def test_exactly_at_budget_passes(elf):
    image = ElfImage(elf)
    assert BudgetJudge(image, budget(image.ram_bytes, image.flash_bytes)).verdict().ok


def test_over_ram(elf):
    image = ElfImage(elf)
    limit = image.ram_bytes - 100
    verdict = BudgetJudge(image, budget(ram=limit)).verdict()
    assert not verdict.ok
    first = verdict.lines[0]
    assert first == (f"error: RAM over budget on test_board: {image.ram_bytes} B used, budget {limit} B (test RAM), "
                     f"100 B over ({elf})")
    text = verdict.text
    assert f"model tiny: RAM {ARENA + STATE} B" in text
    assert f"arena {ARENA} B: tiny_arena {ARENA} B" in text
    crc = zlib.crc32(bytes([1, 2, 3]) + bytes(WEIGHTS - 3))  # tiny_w0 as elfs.py's SOURCE defines it
    assert f"weights {WEIGHTS} B crc32 0x{crc:08x}: tiny_w0 {WEIGHTS} B" in text
    assert "code " in text and "tiny_invoke" in text
    assert f"arena {SMALL_ARENA} B: tiny_small_arena {SMALL_ARENA} B" in text
    assert "runtime (mr_*)" in text and "mr_dense_s8" in text
    assert ".bss" in text and ".noinit" in text  # the RAM sections, largest first
    assert sum(line.startswith("error:") for line in verdict.lines) == 1


def test_over_flash_only(elf):
    image = ElfImage(elf)
    verdict = BudgetJudge(image, budget(ram=1 << 20, flash=1024)).verdict()
    assert not verdict.ok
    assert verdict.lines[0].startswith(f"error: Flash over budget on test_board: {image.flash_bytes} B used, "
                                       f"budget 1024 B (test Flash), {image.flash_bytes - 1024} B over")
    assert any("RAM" in line and "within budget" in line for line in verdict.lines)


def test_over_both(elf):
    verdict = BudgetJudge(ElfImage(elf), budget(ram=1000, flash=1000)).verdict()
    assert [line.split(" over budget")[0] for line in verdict.lines[:2]] == ["error: RAM", "error: Flash"]


def test_stripped_over_budget_reports_totals_only(stripped_elf):
    image = ElfImage(stripped_elf)
    verdict = BudgetJudge(image, budget(ram=1000)).verdict()
    assert not verdict.ok
    assert f"{image.ram_bytes} B used" in verdict.lines[0]
    assert any("stripped" in line for line in verdict.lines)
    ok = BudgetJudge(image, budget()).verdict()
    assert ok.ok and "no symbol table" in ok.lines[0]


def test_no_budget_passes_and_says_so(elf):
    verdict = BudgetJudge(ElfImage(elf), budget(board=None)).verdict()
    assert verdict.ok and "(no budget)" in verdict.lines[0] and "(no board)" in verdict.lines[0]


def test_named_model_missing_from_the_image(elf):
    verdict = BudgetJudge(ElfImage(elf), budget(), models=["kws"]).verdict()
    assert verdict.ok and "model kws: no symbols in the image" in verdict.lines[0]


def test_a_model_found_by_invoke_and_arena_alone():
    """The accessors dropped by --gc-sections and NAME_invoke_with inlined into NAME_invoke (a Zephyr -Os
    link): NAME_invoke and NAME_arena still name the model."""
    from micro_relay.budget import Symbol
    from micro_relay.budget.judge import detect_models

    symbols = [Symbol("wide_invoke", 40, True, ".text", False, True),
               Symbol("wide_arena", 1276, False, ".bss", True, False),
               Symbol("other_invoke", 8, True, ".text", False, True)]
    assert detect_models(symbols) == ["wide"]
