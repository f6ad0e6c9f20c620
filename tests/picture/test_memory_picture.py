"""`micro-relay report MODEL -o plan.html`: a page that fetches nothing and is the same bytes every time, with a
rectangle per buffer and the peak; rendered in headless Chromium, the screenshot is not blank and the peak's
red column stands where the plan's peak step is. A bad profile file is one error line and no page."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from micro_relay.cli import main
from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.examples.kws_model import build_kws_model
from micro_relay.picture.memory_chart import HEIGHT, step_x
from micro_relay.plan.buffers import peak_step
from support.png import read_png

PAGE_MARGIN = 16  # body margin in page.py's style
PEAK_RGB = (0xE0, 0x00, 0x00)


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "kws_example.tflite"
    path.write_bytes(build_kws_model())
    return path


def _profile(tmp_path, model) -> str:
    """A profile in `micro-relay device profile --json`'s shape (counts made up: this tests the drawing)."""
    path = tmp_path / "profile.json"
    path.write_text(json.dumps({"unit": "instructions", "layers": [
        {"step": s, "instructions": 1000 * (s + 1)} for s in range(len(model.plan.order))]}))
    return str(path)


def test_the_page_fetches_nothing_and_repeats(example, tmp_path):
    model = compile_graph(prepare_graph(example), "kws_example", example.name, target="cortex-m4")
    argv = ["report", str(example), "--target", "cortex-m4", "--profile", _profile(tmp_path, model)]
    assert main([*argv, "-o", str(tmp_path / "a.html")]) == 0
    assert main([*argv, "-o", str(tmp_path / "b.html")]) == 0
    text = (tmp_path / "a.html").read_text()
    assert text == (tmp_path / "b.html").read_text()
    assert not re.search(r"https?:|<script|<link|<img|src=|@import", text)
    assert set(re.findall(r"url\(([^)]*)\)", text)) == {"#shared"}
    assert text.count("<rect") > len(model.plan.buffers) + 2 * len(model.plan.order)  # buffers, two bars a step
    for buf in model.plan.buffers:  # every buffer's tooltip names it, its bytes and its offset
        assert f"{buf.size} B at offset {model.plan.offsets[buf.name]}" in text


def test_a_bad_profile_is_one_line_and_no_page(example, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"layers": [{"step": 0}]}')
    assert main(["report", str(example), "-o", str(tmp_path / "p.html"), "--profile", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not the JSON of micro-relay bench --profile" in err
    assert list(tmp_path.iterdir()) == [bad]


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium (Debian package chromium) is not installed")
def test_chromium_renders_the_peak_where_the_plan_has_it(example, tmp_path):
    model = compile_graph(prepare_graph(example), "kws_example", example.name, target="cortex-m4")
    page = tmp_path / "plan.html"
    assert main(["report", str(example), "--target", "cortex-m4", "-o", str(page)]) == 0
    shot = tmp_path / "plan.png"
    quiet = ["--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]  # the page is local: no connection is wanted
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *quiet,
                    "--window-size=1240,900", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    pixels = read_png(shot.read_bytes())
    assert pixels.shape == (900, 1240, 3)
    assert (pixels != 255).any(axis=2).mean() > 0.2  # not blank: a fifth of the page is drawn on
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 20  # many fills, not one colour
    red = np.all(pixels == PEAK_RGB, axis=2)
    peak = peak_step(list(model.plan.buffers))
    steps = len(model.plan.order)
    left_edge = round(PAGE_MARGIN + step_x(peak, steps))
    right_edge = round(PAGE_MARGIN + step_x(peak + 1, steps))
    for edge in (left_edge, right_edge):  # the column's two sides: red the whole chart's height
        rows = np.nonzero(red[:, edge - 1:edge + 2].any(axis=1))[0]
        assert len(rows) >= 0.9 * HEIGHT, (edge, len(rows))
    others = [s for s in range(steps) if s != peak]
    for step in others:  # no other step boundary is red from top to bottom
        edge = round(PAGE_MARGIN + step_x(step, steps))
        if abs(edge - left_edge) > 3 and abs(edge - right_edge) > 3:
            assert red[:, edge - 1:edge + 2].any(axis=1).sum() < 0.5 * HEIGHT
