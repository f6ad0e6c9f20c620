"""Views and concatenation in place (plan/buffers.py steps 2 and 3'), on named graph shapes built as int8
TFLite networks (tests/support/tflite_view_models.py), arenas worked by hand. TFLite Micro, which copies every
slice and concatenation, is the oracle of the compiled C: on the host (portable kernels) and on the Cortex-M4
under QEMU (Arm DSP kernels, which then write their outputs into the concatenation's slices).

Row bytes below are int8 NHWC rows (W x C). Every 3x3 SAME convolution may start its output below its dying
input (kernels/overlap.py): with input rows of i bytes and output rows of o bytes, row r reads from row r - 1
and writes up to the end of row r, so the delta is the least of i(r - 1) - o(r + 1) over the rows (r = 0:
-o)."""

from __future__ import annotations

import json

import pytest
from support.cortex_m_cases import assert_bit_exact, bench_cases
from support.model_check import assert_matches, compare_with_tflm
from support.tflite_view_models import concat_rows_model, slice_model, split_rows_model

from micro_relay.compiler import compile_graph
from micro_relay.frontend.tflite import read_tflite
from micro_relay.passes import run_pipeline
from micro_relay.plan.buffers import build_buffers, lower_bound, node_overlap
from micro_relay.plan.memory_plan import plan_memory

from .graphs import BINARY, UNARY, VIEW, Builder


def _compiled(model: bytes):
    return compile_graph(run_pipeline(read_tflite(model, "views")), "views", "views")


def _c(model) -> str:
    return "".join(model.files.values())


def _bound(model: bytes, views: bool) -> int:
    """The lower bound of the model's own order with views and concatenations in place, or with copies."""
    graph = run_pipeline(read_tflite(model, "views"))
    order = tuple(range(len(graph.nodes)))
    return lower_bound(build_buffers(graph, order, {}, node_overlap(graph), views))


def test_contiguous_slice_is_a_view():
    """Named shape "slice of a feature map":

        input 8x8x3 (192 B) ─ conv 3x3 ─ f 8x8x4 (256 B) ─ slice rows 2..5 ─ s 4x8x4 (128 B) ─ conv 3x3 ─ y 4x8x4

    Step 0 (conv over the input, rows 24 B -> 32 B): delta min(24(r - 1) - 32(r + 1)) = -112 at r = 7, so
    f and the input need max(256, 192 + 112) = 304 B.
    Copies: step 1 holds f and s, 256 + 128 = 384 B: the arena.
    View: s is f's bytes from byte 2 x 32 = 64 on; the slice runs no code. Step 2 (conv over s, rows 32 -> 32):
    delta -64 relative to s, so -64 + 64 = 0 relative to f's buffer: y may start where f starts and the pair
    needs max(128, 256) = 256 B. The arena is step 0's 304 B."""
    model = slice_model()
    assert _bound(model, views=False) == 384
    assert _bound(model, views=True) == 304
    compiled = _compiled(model)
    assert compiled.plan.arena_bytes == 304
    assert "mr_strided_slice(" not in _c(compiled)
    assert_matches(compare_with_tflm(model))


def test_slice_of_columns_is_still_copied():
    """Columns 2..5 of each row are 8 runs, not one: the slice copies."""
    model = slice_model(begin=(0, 0, 2, 0), end=(1, 8, 6, 4))
    assert "mr_strided_slice(" in _c(_compiled(model))
    assert_matches(compare_with_tflm(model))


def test_concatenation_on_rows_is_written_in_place():
    """Named shape "two branches joined on the height":

        input 8x8x3 ─ conv 3x3 ─ f 8x8x4 (256 B) ─┬─ conv 3x3 ─ a 8x8x4 (256 B) ─┐
                                                 └─ conv 3x3 ─ b 8x8x4 (256 B) ─┴─ concat (height) ─ j 16x8x4 (512 B) ─ conv 1x1

    Copies: step 2 holds f, a and b less b's lagged overlap over f (delta -64: 768 - 192 = 576 B), step 3 a, b
    and j: 256 + 256 + 512 = 1,024 B, the arena.
    In place: a is j's first 256 bytes, b its last 256, and j's buffer is live from step 1 on. Step 1 holds f
    and j (256 + 512 = 768 B), as does step 2 (b is written into j, so it takes no lagged overlap over f); the
    concatenation runs no code. The arena is 768 B."""
    model = concat_rows_model()
    assert _bound(model, views=False) == 1024
    assert _bound(model, views=True) == 768
    compiled = _compiled(model)
    assert compiled.plan.arena_bytes == 768
    assert "mr_concatenate(" not in _c(compiled)
    assert_matches(compare_with_tflm(model))


def test_split_then_concatenation_runs_neither():
    """Named shape "split, convolve each part, join": SPLIT of f 8x8x8 (512 B) into two 4x8x8 parts (256 B), a 3x3
    conv of each, CONCATENATION of the two outputs on the height (512 B).
    Copies: the second slice's step holds f and both parts, 512 + 256 + 256 = 1,024 B, and the concatenation's
    both outputs and the result, 1,024 B. Views: the parts are f's two halves and the convolutions write the
    halves of the result, so f (512 B, read until the second conv) and the result (512 B, from the first conv
    on) are live together at those two steps: 1,024 B. The same arena, and neither copy runs (the tie goes
    to the views)."""
    model = split_rows_model()
    assert _bound(model, views=False) == _bound(model, views=True) == 1024
    compiled = _compiled(model)
    assert compiled.plan.arena_bytes <= 1024
    assert "mr_concatenate(" not in _c(compiled) and "mr_strided_slice(" not in _c(compiled)
    report = json.loads(next(text for path, text in compiled.files.items() if path.endswith(".plan.json")))
    assert [(e["op"], e["as"], e.get("offset_in_buffer")) for e in report["free_nodes"]] == [
        ("strided_slice", "view", 0), ("strided_slice", "view", 256),
        ("concatenate", "written in place by its producers", None)]
    assert_matches(compare_with_tflm(model))


def test_view_read_late_is_placed_as_a_copy():
    """Named shape "small view read late" (int8 vectors, test ops of tests/plan/graphs.py):

        x (64) ─ a (2048) ─┬─ view [0, 16) ─ s (16) ──────────────┐
                           └─ b (2048) ─ c (2048) ─────────────────┴─ out (16)

    Copies: s is 16 bytes of its own; a dies at b's step. Steps: a: 64 + 2048 = 2112; s: 2048 + 16; b:
    2048 + 16 + 2048 = 4112; c: 16 + 2048 + 2048 = 4112; out: 2048 + 16 + 16. Peak 4,112 B.
    View: s keeps all of a's 2,048 bytes live until out runs, so c's step holds a, b and c: 6,144 B.
    plan_memory places both and keeps the copy."""
    b = Builder()
    x = b.input("x", 64)
    a = b.node(UNARY, [x], "a", 2048)
    s = b.node(VIEW, [a], "s", 16, at=0)
    c = b.node(UNARY, [b.node(UNARY, [a], "b", 2048)], "c", 2048)
    graph = b.graph(b.node(BINARY, [c, s], "out", 16))
    order = tuple(range(len(graph.nodes)))
    assert lower_bound(build_buffers(graph, order, {}, {}, views=True)) == 6144
    assert lower_bound(build_buffers(graph, order, {}, {}, views=False)) == 4112
    plan = plan_memory(graph)
    assert plan.arena_bytes == 4112 and not plan.views
    assert plan.buffer_of("s").name != plan.buffer_of("a").name


def test_view_places_its_tensor_inside_the_buffer():
    """x (64) ─ a (256) ─ view [128, 192) ─ s (64) ─ out (64): s lives in a's buffer at byte 128, the emitter's
    pointer to s is a's offset + 128."""
    b = Builder()
    a = b.node(UNARY, [b.input("x", 64)], "a", 256)
    graph = b.graph(b.node(UNARY, [b.node(VIEW, [a], "s", 64, at=128)], "out", 64))
    plan = plan_memory(graph)
    assert plan.views and plan.buffer_of("s").name == "a"
    assert plan.tensor_offset("s") == plan.tensor_offset("a") + 128


def test_view_at_an_unaligned_byte_is_a_copy():
    """Kernels may read their tensors a word at a time: a view starting at byte 2 of its buffer is not taken."""
    b = Builder()
    a = b.node(UNARY, [b.input("x", 64)], "a", 256)
    graph = b.graph(b.node(UNARY, [b.node(VIEW, [a], "s", 64, at=2)], "out", 64))
    buffers = build_buffers(graph, tuple(range(len(graph.nodes))), {}, {}, views=True)
    assert all("s" not in buf.tensors or buf.tensors == ("s",) for buf in buffers)


@pytest.mark.parametrize("name", ["slice", "concat", "split"])
def test_views_match_tflm_on_the_dsp_path_of_cortex_m4(arm_tools, tmp_path, name):
    model = {"slice": slice_model(), "concat": concat_rows_model(), "split": split_rows_model()}[name]
    result = bench_cases(tmp_path, {name: model}, target="cortex-m4")[name]
    assert result["compared_with"] == "tflite_micro"
    assert_bit_exact(result)
