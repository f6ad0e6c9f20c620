"""Data-movement and shape operators against TFLite Micro: TRANSPOSE, SLICE, SPLIT, SPLIT_V, PACK, UNPACK,
GATHER, GATHER_ND, BROADCAST_TO, FILL, ZEROS_LIKE, MIRROR_PAD, SPACE_TO_DEPTH, DEPTH_TO_SPACE,
SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND and CAST, each in the element types TFLite Micro runs it in (probed on
its interpreter; tests/ops/test_movement_numpy.py covers TILE and the types it refuses).

All but CAST copy raw elements, so integer and float outputs are compared exactly. Runtime gather positions
are drawn inside their axes (outside ones fail the invoke, tested in test_movement_numpy.py).
SPACE_TO_BATCH_ND's padding is uninitialized memory in TFLite Micro, so padded cells are compared with
TensorFlow's definition instead (real zero: the zero point), located by numpy from the op's definition.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import tflite_movement_models as mm
from support.model_check import compare_with_tflm
from support.tflite_models import check, log_uniform, zero_points

from micro_relay.frontend.tflite import read_tflite

COPY_TYPES = {  # what TFLite Micro's kernels accept (beyond these it fails Prepare or Invoke)
    "TRANSPOSE": ["int8", "int16", "float32"], "SLICE": ["int8", "int16", "int32", "float32", "bool"],
    "SPLIT": ["int8", "int16", "int32", "float32"], "PACK": ["int8", "int16", "int32", "float32"],
    "GATHER": ["int8", "float32"], "BROADCAST_TO": ["int8", "int16", "int32", "float32", "bool"],
    "MIRROR_PAD": ["int8", "float32"], "SPACE": ["int8", "float32"],
}


def _quant(draw, dtype):
    return draw(log_uniform(0.005, 0.5)), draw(zero_points(dtype)) if dtype == "int8" else 0


def _shape(draw, min_rank=1, max_rank=4, max_dim=5):
    return tuple(draw(st.lists(st.integers(1, max_dim), min_size=min_rank, max_size=max_rank)))


def _samples(model, seeds=(0, 1, 2), positions=None, float_scale=1.0):
    """Random inputs over each type's range (floats standard normal times float_scale); `positions` (axis
    sizes) makes the last input valid gather positions."""
    graph = read_tflite(model, "test model")
    out = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        sample = []
        for name in graph.inputs:
            t = graph.type_of(name)
            if t.dtype.value == "bool":
                sample.append(rng.integers(0, 2, t.shape).astype(bool))
            elif t.dtype.is_float:
                sample.append((rng.standard_normal(t.shape) * float_scale).astype(np.float32))
            else:
                sample.append(rng.integers(t.dtype.min, t.dtype.max + 1, t.shape, dtype=np.int64).astype(t.dtype.numpy))
        if positions is not None:
            shape = sample[-1].shape
            sizes = np.broadcast_to(np.asarray(positions), shape)
            sample[-1] = (rng.integers(0, 1 << 30, shape) % sizes).astype(np.int32)
        out.append(sample)
    return out


def check_all(model, positions=None):
    check(model, samples=_samples(model, positions=positions))


# -- TRANSPOSE, SLICE, SPLIT, SPLIT_V, PACK, UNPACK: existing IR ops ----------------------------------------

@given(data=st.data())
def test_transpose_matches_tflm(data):
    dtype = data.draw(st.sampled_from(COPY_TYPES["TRANSPOSE"]))
    shape = _shape(data.draw, max_rank=5)
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    check_all(mm.transpose_model(dtype, shape, perm, _quant(data.draw, dtype)))


@given(data=st.data())
def test_slice_and_splits_match_tflm(data):
    dtype = data.draw(st.sampled_from(COPY_TYPES["SLICE"]))
    shape = _shape(data.draw)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    q = _quant(data.draw, dtype) if dtype in ("int8", "int16") else None
    kind = data.draw(st.sampled_from(["SLICE", "SPLIT", "SPLIT_V"] if dtype != "bool" else ["SLICE"]))
    if kind == "SLICE":
        begin = [data.draw(st.integers(0, d - 1)) for d in shape]
        size = [data.draw(st.sampled_from([-1, data.draw(st.integers(1, d - b))])) for d, b in zip(shape, begin)]
        model = mm.slice_model(dtype, shape, tuple(begin), tuple(size), q)
    elif kind == "SPLIT":
        dim = shape[axis]
        num = data.draw(st.sampled_from([k for k in range(1, dim + 1) if dim % k == 0]))
        model = mm.split_model(dtype, shape, axis, num, q)
    else:
        cuts = sorted(data.draw(st.lists(st.integers(1, shape[axis] - 1), max_size=3, unique=True))) if shape[axis] > 1 else []
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [shape[axis]])]
        if data.draw(st.booleans()):
            sizes[data.draw(st.integers(0, len(sizes) - 1))] = -1
        model = mm.split_v_model(dtype, shape, axis % len(shape), tuple(sizes), q)
    check_all(model)


@given(data=st.data())
def test_pack_and_unpack_match_tflm(data):
    dtype = data.draw(st.sampled_from(COPY_TYPES["PACK"]))
    shape = _shape(data.draw, max_rank=3)
    q = _quant(data.draw, dtype)
    if data.draw(st.booleans()):
        axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
        check_all(mm.pack_model(dtype, shape, data.draw(st.integers(1, 4)), axis, q))
    else:
        check_all(mm.unpack_model(dtype, shape, data.draw(st.integers(-len(shape), len(shape) - 1)), q))


MOVED_NAMED = {
    "TRANSPOSE NCHW->NHWC int8 [1,32,12,12]": lambda: mm.transpose_model(shape=(1, 32, 12, 12), perm=(0, 2, 3, 1),
                                                                         quant=(0.02, -5)),
    "TRANSPOSE NHWC->NCHW float32 [1,96,96,1]": lambda: mm.transpose_model("float32", (1, 96, 96, 1)),
    "TRANSPOSE int16 2-D": lambda: mm.transpose_model("int16", (40, 10), (1, 0), (1e-3, 0)),
    "SLICE KWS frames [1,49,10,1]": lambda: mm.slice_model(shape=(1, 49, 10, 1), begin=(0, 10, 0, 0),
                                                           size=(1, 30, -1, 1)),
    "SLICE bool": lambda: mm.slice_model("bool", (3, 4), (1, 1), (2, -1), None),
    "SPLIT channels 1280 in 4 int8": lambda: mm.split_model(shape=(1, 1, 1, 1280), axis=3, num_splits=4),
    "SPLIT_V int32 with -1": lambda: mm.split_v_model("int32", (2, 10), 1, (3, -1, 2), None),
    "PACK 3 float32 rows, last axis": lambda: mm.pack_model("float32", (4, 8), 3, -1),
    "UNPACK int8 channels": lambda: mm.unpack_model(shape=(1, 6, 6, 3), axis=3, quant=(0.05, 12)),
}


@pytest.mark.parametrize("build", MOVED_NAMED.values(), ids=MOVED_NAMED.keys())
def test_moved_named(build):
    check_all(build())


# -- GATHER, GATHER_ND ---------------------------------------------------------------------------------

@given(data=st.data())
def test_gather_matches_tflm(data):
    dtype = data.draw(st.sampled_from(COPY_TYPES["GATHER"]))
    shape = _shape(data.draw)
    axis = data.draw(st.integers(0, len(shape) - 1))
    batch_dims = data.draw(st.integers(0, min(axis, 1)))
    idx_shape = tuple(shape[:batch_dims]) + _shape(data.draw, 1, 2)
    q = _quant(data.draw, dtype)
    if data.draw(st.booleans()):
        values = data.draw(st.lists(st.integers(0, shape[axis] - 1), min_size=int(np.prod(idx_shape)),
                                    max_size=int(np.prod(idx_shape))))
        check_all(mm.gather_model(dtype, shape, np.reshape(values, idx_shape), axis, batch_dims, True, q))
    else:
        check_all(mm.gather_model(dtype, shape, idx_shape, axis, batch_dims, False, q), positions=shape[axis])


@given(data=st.data())
def test_gather_nd_matches_tflm(data):
    dtype = data.draw(st.sampled_from(COPY_TYPES["GATHER"]))
    shape = _shape(data.draw)
    depth = data.draw(st.integers(1, len(shape)))
    index_shape = _shape(data.draw, 1, 2) + (depth,)
    check_all(mm.gather_nd_model(dtype, shape, index_shape, _quant(data.draw, dtype)), positions=shape[:depth])


GATHER_NAMED = {
    "embedding rows int8 (1000 x 64 table, constant ids)": lambda: mm.gather_model(
        shape=(1000, 64), indices=((3, 999, 0, 512),), quant=(0.02, -3)),
    "embedding runtime ids float32": lambda: (mm.gather_model("float32", (50, 16), (1, 10), constant=False), 50),
    "channel gather axis -1 int8": lambda: mm.gather_model(shape=(1, 4, 4, 8), indices=(7, 0, 3), axis=-1),
    "batch_dims 1 float32": lambda: (mm.gather_model("float32", (3, 6, 2), (3, 4), 1, 1, False), 6),
    "GATHER_ND pixels of a map int8": lambda: (mm.gather_nd_model(shape=(1, 8, 8, 16), index_shape=(5, 3)),
                                               [1, 8, 8]),
}


@pytest.mark.parametrize("build", GATHER_NAMED.values(), ids=GATHER_NAMED.keys())
def test_gather_named(build):
    built = build()
    model, positions = built if isinstance(built, tuple) else (built, None)
    check_all(model, positions)


# -- BROADCAST_TO, FILL, ZEROS_LIKE ----------------------------------------------------------------------

@given(data=st.data())
def test_broadcast_to_matches_tflm(data):
    dtype = data.draw(st.sampled_from(COPY_TYPES["BROADCAST_TO"]))
    target = _shape(data.draw, max_rank=5)
    rank = data.draw(st.integers(1, len(target)))
    shape = tuple(d if data.draw(st.booleans()) else 1 for d in target[len(target) - rank:])
    q = _quant(data.draw, dtype) if dtype in ("int8", "int16") else None
    check_all(mm.broadcast_to_model(dtype, shape, target, q))


FILL_NAMED = {
    "BROADCAST_TO pooled vector to a map [1,1,1,1280] -> [1,4,4,1280]": lambda: mm.broadcast_to_model(
        shape=(1, 1, 1, 1280), target=(1, 4, 4, 1280), quant=(0.03, 7)),
    "BROADCAST_TO scalar-like to [1,49,10,1] float32": lambda: mm.broadcast_to_model("float32", (1,), (1, 49, 10, 1)),
    "FILL float32 runtime value": lambda: mm.fill_model("float32", (2, 3, 4)),
    "FILL int32 runtime value": lambda: mm.fill_model("int32", (1, 1280)),
    "FILL int8 runtime value": lambda: mm.fill_model("int8", (1, 8, 8, 3), (0.1, 4)),
    "ZEROS_LIKE float32": lambda: mm.zeros_like_model("float32", (1, 96, 96, 1)),
    "ZEROS_LIKE int32": lambda: mm.zeros_like_model("int32", (3, 7)),
    "ZEROS_LIKE int64": lambda: mm.zeros_like_model("int64", (5,)),
}


@pytest.mark.parametrize("build", FILL_NAMED.values(), ids=FILL_NAMED.keys())
def test_broadcast_and_fill_named(build):
    check_all(build())


def test_fill_of_a_constant_value_is_folded():
    """FILL(dims, constant): nothing runs, the output is a constant TFLite Micro agrees with."""
    from micro_relay.frontend.tflite.writer import TFLiteBuilder
    from micro_relay.passes import run_pipeline

    b = TFLiteBuilder()
    x = b.tensor("x", (2, 3), "float32")
    dims = b.tensor("dims", (2,), "int32", data=[2, 3])
    value = b.tensor("value", (), "float32", data=[1.5])
    filled = b.tensor("filled", (2, 3), "float32")
    y = b.tensor("y", (2, 3), "float32")
    b.op("FILL", [dims, value], [filled]).op("ADD", [x, filled], [y])
    model = b.inputs(x).outputs(y).build()
    graph = run_pipeline(read_tflite(model, "fill"))
    assert [n.op for n in graph.nodes] == ["add"]
    check_all(model)


# -- MIRROR_PAD, SPACE_TO_DEPTH, DEPTH_TO_SPACE ------------------------------------------------------------

@given(data=st.data())
def test_mirror_pad_matches_tflm(data):
    dtype = data.draw(st.sampled_from(COPY_TYPES["MIRROR_PAD"]))
    mode = data.draw(st.sampled_from(["REFLECT", "SYMMETRIC"]))
    shape = _shape(data.draw, max_dim=4)
    limit = (lambda d: d) if mode == "SYMMETRIC" else (lambda d: d - 1)
    pads = tuple((data.draw(st.integers(0, limit(d))), data.draw(st.integers(0, limit(d)))) for d in shape)
    check_all(mm.mirror_pad_model(dtype, shape, pads, mode, _quant(data.draw, dtype)))


@given(data=st.data())
def test_space_depth_matches_tflm(data):
    dtype = data.draw(st.sampled_from(COPY_TYPES["SPACE"]))
    block = data.draw(st.integers(1, 3))
    n, h, w, c = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)),
                  data.draw(st.integers(1, 4)))
    q = _quant(data.draw, dtype)
    if data.draw(st.booleans()):
        check_all(mm.space_to_depth_model(dtype, (n, h * block, w * block, c), block, q))
    else:
        check_all(mm.depth_to_space_model(dtype, (n, h, w, c * block * block), block, q))


SPATIAL_NAMED = {
    "MIRROR_PAD REFLECT 1 px image int8 [1,96,96,1]": lambda: mm.mirror_pad_model(
        shape=(1, 96, 96, 1), paddings=((0, 0), (1, 1), (1, 1), (0, 0)), quant=(0.05, -20)),
    "MIRROR_PAD SYMMETRIC 3 px float32": lambda: mm.mirror_pad_model(
        "float32", (1, 8, 8, 4), ((0, 0), (3, 3), (3, 3), (0, 0)), "SYMMETRIC"),
    "SPACE_TO_DEPTH 2 of [1,96,96,1] int8": lambda: mm.space_to_depth_model(shape=(1, 96, 96, 1), block=2),
    "DEPTH_TO_SPACE 2 of 32 channels float32": lambda: mm.depth_to_space_model("float32", (1, 6, 6, 32), 2),
    "BATCH_TO_SPACE crop float32": lambda: mm.batch_to_space_model("float32", (4, 3, 3, 8), (2, 2), ((1, 0), (0, 1))),
    "BATCH_TO_SPACE 3-D int8": lambda: mm.batch_to_space_model(shape=(2, 5, 3), block=(2,), crops=((0, 1),)),
    "SPACE_TO_BATCH no padding 3-D float32": lambda: mm.space_to_batch_model("float32", (1, 8, 3), (2,), ((0, 0),)),
}


@pytest.mark.parametrize("build", SPATIAL_NAMED.values(), ids=SPATIAL_NAMED.keys())
def test_spatial_named(build):
    check_all(build())


# -- SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND ---------------------------------------------------------------

def _padding_mask(shape, block, paddings) -> np.ndarray:
    """True where SPACE_TO_BATCH_ND's output shows padding: TensorFlow's definition (pad, reshape into
    [n, H/bh, bh, W/bw, bw, c], move the block axes first) applied to a map of ones."""
    shape = tuple(shape) if len(shape) == 4 else (shape[0], shape[1], 1, shape[2])
    block = tuple(block) + (1,) * (2 - len(block))
    paddings = tuple(paddings) + ((0, 0),) * (2 - len(paddings))
    ones = np.pad(np.ones(shape, bool), ((0, 0), *paddings, (0, 0)))
    n, hp, wp, c = ones.shape
    x = ones.reshape(n, hp // block[0], block[0], wp // block[1], block[1], c).transpose(2, 4, 0, 1, 3, 5)
    return ~x.reshape(-1, hp // block[0], wp // block[1], c)


@st.composite
def space_batch_cases(draw) -> dict:
    dtype = draw(st.sampled_from(COPY_TYPES["SPACE"]))
    spatial = draw(st.integers(1, 2))
    block = tuple(draw(st.integers(1, 3)) for _ in range(spatial))
    shape = (draw(st.integers(1, 2)), *(draw(st.integers(1, 7)) for _ in range(spatial)), draw(st.integers(1, 3)))
    pads = []
    for d, b in zip(shape[1:-1], block):
        lo = draw(st.integers(0, 2))
        pads.append((lo, (-(d + lo)) % b + b * draw(st.integers(0, 1))))
    return dict(dtype=dtype, shape=shape, block=block, paddings=tuple(pads), quant=(0.05, draw(st.integers(-128, 127))))


@given(case=space_batch_cases())
def test_space_to_batch_matches_tflm_and_pads_with_the_zero_point(case):
    model = mm.space_to_batch_model(**case)
    result = compare_with_tflm(model, samples=_samples(model))
    padded = _padding_mask(case["shape"], case["block"], case["paddings"])
    zero = 0 if case["dtype"] == "float32" else case["quant"][1]
    for ours, ref, theirs in zip(result.compiled, result.reference, result.tflm):
        for got in (ours[0], ref[0]):
            got = got.reshape(padded.shape)
            np.testing.assert_array_equal(got[~padded], np.asarray(theirs[0]).reshape(padded.shape)[~padded])
            np.testing.assert_array_equal(got[padded], zero)


@given(case=space_batch_cases())
def test_batch_to_space_matches_tflm(case):
    """The inverse geometry: the phases of a padded image back to the image, cropped by the padding."""
    n, *spatial, c = case["shape"]
    grid = [(d + lo + hi) // b for d, b, (lo, hi) in zip(spatial, case["block"], case["paddings"])]
    shape = (n * int(np.prod(case["block"])), *grid, c)
    check_all(mm.batch_to_space_model(case["dtype"], shape, case["block"], case["paddings"], case["quant"]))


# -- CAST ------------------------------------------------------------------------------------------------

CAST_TYPES = ["int8", "int16", "int32", "uint32", "float32", "bool"]


@given(src=st.sampled_from(CAST_TYPES), dst=st.sampled_from(CAST_TYPES), float_scale=st.sampled_from([1.0, 300.0, 3e9]))
def test_cast_matches_tflm(src, dst, float_scale):
    """Integers wrap, floats truncate and saturate (scales up to 3e9 reach every integer type's limits)."""
    model = mm.cast_model(src, dst, (3, 7))
    check(model, samples=_samples(model, float_scale=float_scale))


def test_cast_of_special_floats_matches_tflm():
    model = mm.cast_model("float32", "int32", (8,))
    special = np.array([np.nan, np.inf, -np.inf, 2.5e9, -2.5e9, -0.75, 0.75, -2147483648.0], np.float32)
    check(model, samples=[[special]])
