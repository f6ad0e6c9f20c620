"""A model that does not fit, as a firmware engineer meets it in a Zephyr build:

- too large for the board's flash (tests/zephyr/too_large: 320 KiB of weights on qemu_cortex_m3's 256 KiB):
  the build stops at the model's generator step with the budget breakdown and a hint, never reaching the
  linker's region overflow (validate_fit_output.py checks the output) and links nothing;
- over budget after the link (a RAM budget of 1 KiB): no image is left that `west flash` or a CI step could
  ship; zephyr.elf is kept as zephyr.elf.over-budget.
Both need a Zephyr workspace (ZEPHYR_BASE) and skip without one.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from micro_relay.examples.sine_model import build_sine_model
from test_zephyr_bad_input import make_app
from zephyr_env import new_build

HERE = Path(__file__).resolve().parent
FLASHABLE = ("zephyr.elf", "zephyr.hex", "zephyr.bin", "zephyr.uf2", "zephyr.exe", "zephyr.s19")


def _validator():
    spec = importlib.util.spec_from_file_location("validate_fit_output", HERE / "too_large" / "validate_fit_output.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_too_large_model_stops_before_the_link(tmp_path):
    build = new_build(HERE / "too_large", "qemu_cortex_m3", tmp_path / "build").west(pristine=True)
    assert build.returncode != 0, build.log[-3000:]
    problems = _validator().check(build.log, "qemu_cortex_m3/ti_lm3s6965", 256)
    assert problems == [], "\n".join(problems) + "\n" + build.log[-4000:]
    assert not any((tmp_path / "build" / "zephyr" / name).exists() for name in FLASHABLE)


def test_model_that_fits_alone_gets_the_breakdown_at_the_link(tmp_path):
    """snug's weights fit the 256 KiB alone: the generator lets it through, the link overflows FLASH, and the
    linker launcher prints the breakdown after ld's own error."""
    build = new_build(HERE / "too_large", "qemu_cortex_m3", tmp_path / "build").west(
        pristine=True, cmake_args=("-DMODEL_KIND=snug",))
    assert build.returncode != 0, build.log[-3000:]
    log = build.log
    assert "before linking" not in log and "region `FLASH' overflowed by" in log, log[-4000:]
    report = log[log.index("error: Flash over budget on qemu_cortex_m3/ti_lm3s6965: "):]
    assert re.match(r"error: Flash over budget on \S+: (\d+) B used, budget 262144 B \(CONFIG_FLASH_SIZE=256\), "
                    r"\d+ B over \(.*zephyr_pre0\.elf, linked with more FLASH to be measured, deleted\)", report), report
    assert re.search(r"^    weights \d+ B \(weights 256000 B, ", report, re.MULTILINE), report
    assert "  hint: Flash: " in report and "Traceback" not in log
    assert not any((tmp_path / "build" / "zephyr" / name).exists() for name in FLASHABLE)


@pytest.mark.parametrize("board", ["qemu_cortex_m3", "native_sim"])
def test_no_image_left_after_a_budget_failure(tmp_path, board):
    app = make_app(tmp_path / "app", conf="CONFIG_MICRO_RELAY_RAM_BUDGET_KB=1\n", model_bytes=build_sine_model())
    build = new_build(app, board, tmp_path / "build").west(pristine=True)
    assert build.returncode != 0 and "RAM over budget" in build.log, build.log[-3000:]
    zephyr = tmp_path / "build" / "zephyr"
    assert [name for name in FLASHABLE if (zephyr / name).exists()] == [], sorted(p.name for p in zephyr.iterdir())
    assert (zephyr / "zephyr.elf.over-budget").is_file()
    assert "nothing left to flash: " in build.log
    again = new_build(app, board, tmp_path / "build").west()  # the next build checks again, and fails again
    assert again.returncode != 0 and "RAM over budget" in again.log
