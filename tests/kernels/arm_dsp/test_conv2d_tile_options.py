"""The Arm DSP conv2d kernel's tile_pixels option: the tiles the compiler may give it
(kernels/arm_dsp/conv2d.py), their scratch and the lagged overlap they still allow."""

from __future__ import annotations

import pytest

from micro_relay.compiler import prepare_graph
from micro_relay.errors import CompileError
from micro_relay.kernels.arm_dsp.conv2d import default_tile, dsp_scratch_bytes, larger_tiles
from micro_relay.lower import lower
from micro_relay.ops._conv_common import Geometry
from micro_relay.plan.buffers import node_overlap
from micro_relay.target.cost_model import conv_tiles
from support.tflite_models import conv2d_model

# name: Geometry(batches, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w, filter_c, stride_h, stride_w,
#                dil_h, dil_w, pad_top, pad_left)
GEOMETRIES = {
    "person_detect_6x6_pointwise": Geometry(1, 6, 6, 128, 6, 6, 128, 1, 1, 128, 1, 1, 1, 1, 0, 0),
    "person_detect_48x48_pw8": Geometry(1, 48, 48, 8, 48, 48, 16, 1, 1, 8, 1, 1, 1, 1, 0, 0),
    "resnet_3x3x16_same": Geometry(1, 32, 32, 16, 32, 32, 16, 3, 3, 16, 1, 1, 1, 1, 1, 1),
    "kws_first_10x4_stride2": Geometry(1, 49, 10, 1, 25, 5, 64, 10, 4, 1, 2, 2, 1, 1, 4, 1),
    "two_groups_3x3": Geometry(1, 7, 9, 16, 7, 9, 8, 3, 3, 8, 1, 1, 1, 1, 1, 1),
    "tiny_pointwise_3x3_pixels": Geometry(1, 3, 3, 128, 3, 3, 256, 1, 1, 128, 1, 1, 1, 1, 0, 0),
}


@pytest.mark.parametrize("name", sorted(GEOMETRIES))
def test_larger_tiles_are_larger_fewer_and_largest_first(name):
    g = GEOMETRIES[name]
    default = default_tile(g)
    tiles = larger_tiles(g)
    assert dsp_scratch_bytes(g, 0) == dsp_scratch_bytes(g, default)
    assert list(tiles) == sorted(set(tiles), reverse=True)
    for tile in tiles:
        assert tile > default and tile % 2 == 0
        assert conv_tiles(g, tile) < conv_tiles(g, default)
        assert dsp_scratch_bytes(g, tile) > dsp_scratch_bytes(g, default)


def test_worked_examples():
    """6x6x128 pointwise: 16 pixels a tile by default (3 tiles); 36 (one) or 32 (two) pixels. ResNet-8's
    3x3x16 SAME on 32x32: 14 pixels by default (three tiles a row); all 32 rows, 3 rows, 1 row, or 28 pixels."""
    assert default_tile(GEOMETRIES["person_detect_6x6_pointwise"]) == 16
    assert larger_tiles(GEOMETRIES["person_detect_6x6_pointwise"]) == (36, 32)
    assert default_tile(GEOMETRIES["resnet_3x3x16_same"]) == 14
    assert larger_tiles(GEOMETRIES["resnet_3x3x16_same"]) == (1024, 96, 32, 28)
    assert larger_tiles(GEOMETRIES["tiny_pointwise_3x3_pixels"]) == ()  # 9 pixels: one tile already


def _pointwise(tmp_path, dtype="int8", **options):
    """6x6x32 -> 32 pointwise, lowered for cortex-m4 with the given kernel options."""
    path = tmp_path / "pw.tflite"
    path.write_bytes(conv2d_model(dtype=dtype, input_shape=(1, 6, 6, 32), out_channels=32, kernel=(1, 1), seed=3))
    return lower(prepare_graph(path), "cortex-m4", options={0: options} if options else None)


def _variants(lowered):
    node = lowered.nodes[0]
    return node.kernel.variants(lowered.target, lowered.graph, node.node, node.params, node.plan)


def test_a_whole_layer_tile_leaves_no_overlap(tmp_path):
    """6x6x32 -> 32 (1,152 bytes each side). Tiles of 16: the run from pixel s reads from 32 s and writes up to
    32 min(s + 16, 36): lowest at s = 0, -512. One tile of 36: the run from 0 writes all 1,152 bytes: -1,152."""
    assert node_overlap(_pointwise(tmp_path)) == {0: -512}
    assert node_overlap(_pointwise(tmp_path, tile_pixels=36)) == {0: -1152}


def test_variants_offered_once_and_only_for_int8(tmp_path):
    assert _variants(_pointwise(tmp_path)) == ({"tile_pixels": 36}, {"tile_pixels": 32})
    assert _variants(_pointwise(tmp_path, tile_pixels=32)) == ()
    floats = _pointwise(tmp_path, dtype="float32")
    assert floats.nodes[0].kernel.backend == "portable" and _variants(floats) == ()


def test_a_negative_tile_is_refused(tmp_path):
    with pytest.raises(CompileError, match="tile_pixels must be 0"):
        _pointwise(tmp_path, tile_pixels=-2)
