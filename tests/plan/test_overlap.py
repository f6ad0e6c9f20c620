"""Lagged in-place: the overlap delta of window kernels (kernels/overlap.py) on named shapes, worked out by hand,
and the ops' declarations (KernelPlan.overlap_delta) picking the kernel path the emitter calls."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from conftest import shared_model
from micro_relay.compiler import prepare_graph
from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.types import DType, TensorType
from micro_relay.lower import lower
from micro_relay.kernels.overlap import POINTWISE_TILE, max_delta, pointwise_delta, row_units, tile_units, window_delta
from micro_relay.plan.buffers import node_overlap

ROOT = Path(__file__).resolve().parents[2]


def test_tile_matches_the_kernel():
    source = (ROOT / "crt" / "include" / "micro_relay" / "conv2d.h").read_text()
    assert re.search(r"#define MR_POINTWISE_TILE (\d+)", source).group(1) == str(POINTWISE_TILE)


def test_max_delta_keeps_the_lowest_input_still_to_be_read():
    """Unit 1 reads from 0 again (below unit 0's 10): unit 0's writes must stay below 0 too.
    (in_lo, out_hi): (10, 4), (0, 8): unit 0 has 0 - 4 = -4 (not 10 - 4), unit 1 0 - 8 = -8."""
    assert max_delta([(10, 4), (0, 8)]) == -8
    assert max_delta([(0, 4), (10, 8)]) == -4
    with pytest.raises(ValueError):
        max_delta([])


def test_kws_pointwise():
    """25x5x64 -> 64 channels, int8: 125 pixels. A tile of up to 16 pixels from pixel s reads from 64*s and
    writes up to 64*(s+16) (at most 8000): -1024 for s <= 109, then 64*s - 8000, up to -64 for s = 124."""
    assert tile_units(125, 64, 64)[:2] == [(0, 1024), (64, 1088)]
    assert tile_units(125, 64, 64)[-1] == (7936, 8000)
    assert pointwise_delta(125, 64, 64, 1) == -1024


def test_pointwise_tiles_of_any_size_up_to_16():
    """17 pixels, 1 byte in and 2 out each. Tiles of exactly 16 ([0,16), [16,17)) need
    min(0 - 32, 16 - 34) = -32; tiles of 4 end with [16,17): -18. But tiles [0,1), [1,17) are also at most
    16 pixels, and [1,17) needs 1 - 34 = -33: the run of 16 from pixel 1 binds."""
    assert [s - o for s, o in tile_units(17, 1, 2)[:3]] == [-32, -33, -32]
    assert pointwise_delta(17, 1, 2, 1) == -33


def test_kws_depthwise():
    """3x3, stride 1, padding 1 on 25x5x64 (320 bytes a row): row 0 reads from row 0 and writes row 0
    (0 - 320); row r >= 1 reads from row r - 1 and writes up to the end of row r: -640."""
    assert row_units(1, 25, 320, 25, 320, 1, 1)[:3] == [(0, 320), (0, 640), (320, 960)]
    assert window_delta(1, 25, 5, 64, 25, 5, 64, 1, 1, 1) == -640


def test_person_detect_first_pointwise():
    """48x48x8 -> 16 channels: a tile from pixel s reads from 8*s and writes up to 16*min(s + 16, 2304);
    the last full run (s = 2288) gives 18304 - 36864 = -18560: the output is twice the input, yet it may
    start 18560 bytes below it."""
    assert pointwise_delta(48 * 48, 8, 16, 1) == -18560


def test_stride_two_reads_ahead():
    """1x1, stride 2, no padding, 32x32x16 -> 16x16x32 (ResNet-8's shortcut), 512-byte rows on both sides:
    output row r reads from input row 2r (1024*r) and writes up to 512*(r+1): the first row binds, -512."""
    assert window_delta(1, 32, 32, 16, 16, 16, 32, 2, 0, 1) == -512


def test_first_depthwise_of_person_detect():
    """3x3, stride 2, padding (0, 0, 1, 1), 96x96x1 -> 48x48x8 (96-byte input rows, 384-byte output rows):
    row r reads from input row 2r (192*r) and writes up to 384*(r+1); the last row binds:
    9024 - 18432 = -9408."""
    assert window_delta(1, 96, 96, 1, 48, 48, 8, 2, 0, 1) == -9408


def test_batches_run_in_order():
    """Two images of 3x2x4, 3x3 stride 1 padding 1, int16 (16 bytes a row, 48 an image): image 1's row 0
    reads from its own row 0 (byte 48) and writes up to 48 + 16: -16; row 1 of either image: -32."""
    units = row_units(2, 3, 16, 3, 16, 1, 1)
    assert units == [(0, 16), (0, 32), (16, 48), (48, 64), (48, 80), (64, 96)]
    assert window_delta(2, 3, 2, 4, 3, 2, 4, 1, 1, 2) == -32


def test_global_pool_is_one_row():
    """kws average pool 25x5 over 25x5x64 -> 1x1x64: one row that reads from 0 and writes 64 bytes."""
    assert window_delta(1, 25, 5, 64, 1, 1, 64, 25, 0, 1) == -64


# ---- the ops' declarations ----

def _conv_graph(dtype: DType, shape, out_c: int, kernel=(1, 1), strides=(1, 1), padding=(0, 0, 0, 0)) -> Graph:
    """One float32 conv2d (no quantization needed): in -> conv -> out."""
    n, h, w, c = shape
    kh, kw = kernel
    oh = (h + padding[0] + padding[2] - kh) // strides[0] + 1
    ow = (w + padding[1] + padding[3] - kw) // strides[1] + 1
    tensors = {
        "in": Tensor("in", TensorType(shape, dtype)),
        "w": Tensor("w", TensorType((out_c, kh, kw, c), dtype), np.zeros((out_c, kh, kw, c), np.float32)),
        "out": Tensor("out", TensorType((n, oh, ow, out_c), dtype)),
    }
    node = Node("nn.conv2d", ("in", "w"), ("out",), {"strides": strides, "padding": padding}, name="conv")
    return Graph(tensors, (node,), ("in",), ("out",))


def test_float_pointwise_takes_the_tighter_of_rows_and_tiles():
    """float32 1x1 on 4x20x8 -> 16 channels has no tiled kernel path, but gets the tile bound as well.
    Rows (640 bytes in, 1280 out): r*640 - (r+1)*1280, lowest at r = 3: -3200. Tiles of 16 pixels (512 bytes
    in, 1024 out) over 80 pixels: 512*t - 1024*(t+1), lowest at t = 4: -3072. Declared: -3200."""
    graph = _conv_graph(DType.FLOAT32, (1, 4, 20, 8), 16)
    assert lower(graph).nodes[0].plan.overlap_delta == -3200
    assert node_overlap(graph) == {0: -3200}


def test_float_window_conv_uses_rows():
    """float32 3x3, padding 1, 5x4x2 -> 3 channels: rows of 32 bytes in, 48 out; row r reads from row r - 1:
    32*(r-1) - 48*(r+1), lowest at the last row r = 4: 96 - 240 = -144."""
    graph = _conv_graph(DType.FLOAT32, (1, 5, 4, 2), 3, kernel=(3, 3), padding=(1, 1, 1, 1))
    assert lower(graph).nodes[0].plan.overlap_delta == -144


def test_kws_declarations():
    """kws_ref_model: the first conv (10x4, stride 2, padding (4, 1, 5, 1), 49x10x1 -> 25x5x64, rows of 10
    bytes in and 320 out): row r reads from input row max(2r - 4, 0) and writes up to 320*(r+1); the last
    row binds: 440 - 8000 = -7560. Then depthwise -640 and pointwise -1024 four times, and the average pool
    -64. Ops without a declaration (dense, softmax, reshape) are left out."""
    graph = prepare_graph(shared_model("mlcommons_tiny/kws_ref_model.tflite"))
    ops = [node.op for node in graph.nodes]
    assert ops[:10] == ["nn.conv2d"] + ["nn.depthwise_conv2d", "nn.conv2d"] * 4 + ["nn.avg_pool2d"]
    assert node_overlap(graph) == {0: -7560, 1: -640, 2: -1024, 3: -640, 4: -1024, 5: -640, 6: -1024,
                                   7: -640, 8: -1024, 9: -64}
