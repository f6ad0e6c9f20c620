"""Data-movement and reduction ops against TFLite Micro: RESHAPE, PAD, PADV2, STRIDED_SLICE, CONCATENATION,
MEAN, AVERAGE_POOL_2D and MAX_POOL_2D.

Copies keep the input's quantization (TFLite Micro copies raw bytes and checks equal quantization for
concatenation and pooling); MEAN may requantize. Shapes, masks, negative indices and axes are drawn freely
within TFLite Micro's 4-D limits.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from support.tflite_models import (ACTIVATIONS, PADDINGS, SEEDS, check, concat_model, log_uniform, mean_model,
                                   pad_model, pool_model, reshape_model, strided_slice_model, strided_slice_shape,
                                   zero_points)

DTYPES = st.sampled_from(["int8", "int16", "float32"])


def _quant(draw, dtype: str) -> tuple[float, int]:
    return draw(log_uniform(0.005, 0.5)), draw(zero_points(dtype))


def _shape(draw, min_rank: int = 1, max_rank: int = 4, max_dim: int = 6) -> tuple[int, ...]:
    return tuple(draw(st.lists(st.integers(1, max_dim), min_size=min_rank, max_size=max_rank)))


# -- RESHAPE ---------------------------------------------------------------------------------------------

@st.composite
def reshape_cases(draw) -> dict:
    """The new shape regroups the old one: permute its dimensions, then merge neighbours."""
    dtype = draw(DTYPES)
    in_shape = _shape(draw)
    dims = list(draw(st.permutations(in_shape)))
    while len(dims) > 1 and draw(st.booleans()):
        i = draw(st.integers(0, len(dims) - 2))
        dims[i:i + 2] = [dims[i] * dims[i + 1]]
    if len(dims) < 4 and draw(st.booleans()):
        dims.insert(0, 1)
    return dict(dtype=dtype, in_shape=in_shape, out_shape=tuple(dims),
                style=draw(st.sampled_from(["tensor", "option", "both"])), quant=_quant(draw, dtype))


@given(case=reshape_cases())
def test_reshape_matches_tflm(case):
    check(reshape_model(**case))


RESHAPE_NAMED = {
    "flatten NHWC": dict(),
    "unflatten to NHWC": dict(in_shape=(1, 48), out_shape=(1, 4, 4, 3)),
    "squeeze": dict(in_shape=(1, 1, 1, 10), out_shape=(1, 10), style="option"),
    "int16 both forms": dict(dtype="int16", in_shape=(2, 6), out_shape=(3, 4), style="both", quant=(1e-3, 0)),
    "float32": dict(dtype="float32", in_shape=(2, 3, 4), out_shape=(4, 6)),
}


@pytest.mark.parametrize("case", RESHAPE_NAMED.values(), ids=RESHAPE_NAMED.keys())
def test_reshape_named(case):
    check(reshape_model(**case))


# -- PAD / PADV2 -----------------------------------------------------------------------------------------

@st.composite
def pad_cases(draw) -> dict:
    dtype = draw(DTYPES)
    shape = _shape(draw, max_dim=5)
    paddings = tuple((draw(st.integers(0, 3)), draw(st.integers(0, 3))) for _ in shape)
    constant = None
    if draw(st.booleans()):  # PADV2 with a constant in the tensor's own type and quantization
        constant = draw(st.floats(-4, 4)) if dtype == "float32" else draw(
            st.integers(-128, 127) if dtype == "int8" else st.integers(-32768, 32767))
    return dict(dtype=dtype, shape=shape, paddings=paddings, constant=constant, quant=_quant(draw, dtype))


@given(case=pad_cases())
def test_pad_matches_tflm(case):
    check(pad_model(**case))


PAD_NAMED = {
    "spatial 1 each side int8": dict(paddings=((0, 0), (1, 1), (1, 1), (0, 0)), quant=(0.05, -12)),
    "asymmetric (TF SAME stride 2)": dict(paddings=((0, 0), (0, 1), (0, 1), (0, 0))),
    "every axis": dict(shape=(2, 2, 2, 2), paddings=((1, 0), (0, 2), (3, 1), (1, 1))),
    "PADV2 constant -128": dict(constant=-128, quant=(0.05, 7)),
    "int16": dict(dtype="int16", quant=(1e-3, 0)),
    "int16 PADV2": dict(dtype="int16", constant=-300, quant=(1e-3, 0)),
    "float32 1-D": dict(dtype="float32", shape=(5,), paddings=((2, 3),)),
    "float32 PADV2": dict(dtype="float32", constant=-1.5),
}


@pytest.mark.parametrize("case", PAD_NAMED.values(), ids=PAD_NAMED.keys())
def test_pad_named(case):
    check(pad_model(**case))


# -- STRIDED_SLICE ---------------------------------------------------------------------------------------

@st.composite
def strided_slice_cases(draw) -> dict:
    dtype = draw(DTYPES)
    shape = _shape(draw)
    begin, end, strides, shrink = [], [], [], 0
    for axis, dim in enumerate(shape):
        if draw(st.integers(0, 5)) == 0:  # shrink: one valid index, stride 1
            shrink |= 1 << axis
            begin.append(draw(st.integers(-dim, dim - 1)))
            end.append(begin[-1] + 1)
            strides.append(1)
            continue
        begin.append(draw(st.integers(-dim - 1, dim + 1)))
        end.append(draw(st.integers(-dim - 1, dim + 1)))
        strides.append(draw(st.sampled_from([1, 1, 2, 3, -1, -2])))
    masks = (1 << len(shape)) - 1
    case = dict(dtype=dtype, shape=shape, begin=tuple(begin), end=tuple(end), strides=tuple(strides),
                begin_mask=draw(st.integers(0, masks)) & ~shrink, end_mask=draw(st.integers(0, masks)) & ~shrink,
                shrink_axis_mask=shrink, quant=_quant(draw, dtype))
    out = strided_slice_shape(shape, case["begin"], case["end"], case["strides"], case["begin_mask"],
                              case["end_mask"], shrink)
    assume(0 not in out)  # empty slices are not a model anyone runs
    return case


@given(case=strided_slice_cases())
def test_strided_slice_matches_tflm(case):
    check(strided_slice_model(**case))


STRIDED_SLICE_NAMED = {
    "rows 1:5:2": dict(),
    "negative stride reverses": dict(shape=(4, 5), begin=(-1, 0), end=(-5, 5), strides=(-1, 1)),
    "masks take everything": dict(shape=(3, 4), begin=(2, 2), end=(0, 0), strides=(1, 1), begin_mask=3, end_mask=3),
    "shrink last axis": dict(shape=(2, 3, 4), begin=(0, 0, 2), end=(2, 3, 3), strides=(1, 1, 1),
                             shrink_axis_mask=4),
    "out-of-range bounds clamp": dict(shape=(6,), begin=(-10,), end=(100,), strides=(2,)),
    "int16": dict(dtype="int16", quant=(1e-3, 0)),
    "float32 stride 3": dict(dtype="float32", shape=(1, 9, 2), begin=(0, 1, 0), end=(1, 9, 2), strides=(1, 3, 1)),
}


@pytest.mark.parametrize("case", STRIDED_SLICE_NAMED.values(), ids=STRIDED_SLICE_NAMED.keys())
def test_strided_slice_named(case):
    check(strided_slice_model(**case))


# -- CONCATENATION ---------------------------------------------------------------------------------------

@st.composite
def concat_cases(draw) -> dict:
    dtype = draw(DTYPES)
    base = _shape(draw, max_dim=4)
    rank = len(base)
    axis = draw(st.integers(-rank, rank - 1))
    count = draw(st.integers(2, 4))
    shapes = []
    for _ in range(count):
        shape = list(base)
        shape[axis % rank] = draw(st.integers(1, 4))
        shapes.append(tuple(shape))
    constant = tuple(i for i in range(1, count) if draw(st.integers(0, 3)) == 0)
    return dict(dtype=dtype, shapes=tuple(shapes), axis=axis, constant=constant, quant=_quant(draw, dtype),
                seed=draw(SEEDS))


@given(case=concat_cases())
def test_concatenation_matches_tflm(case):
    check(concat_model(**case))


CONCAT_NAMED = {
    "channels (axis -1)": dict(quant=(0.05, 9)),
    "axis 1 three inputs": dict(shapes=((1, 2, 3), (1, 1, 3), (1, 4, 3)), axis=1),
    "axis 0 with a constant": dict(shapes=((2, 3), (1, 3)), axis=0, constant=(1,)),
    "int16": dict(dtype="int16", quant=(1e-3, 0)),
    "float32 1-D": dict(dtype="float32", shapes=((3,), (5,)), axis=0),
}


@pytest.mark.parametrize("case", CONCAT_NAMED.values(), ids=CONCAT_NAMED.keys())
def test_concatenation_named(case):
    check(concat_model(**case))


# -- MEAN ------------------------------------------------------------------------------------------------

@st.composite
def mean_cases(draw) -> dict:
    dtype = draw(DTYPES)
    shape = _shape(draw, max_dim=5)
    rank = len(shape)
    axes = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    axes = tuple(a - rank if draw(st.booleans()) else a for a in axes)  # negative spellings too
    in_q = _quant(draw, dtype)
    out_q = (in_q[0] * draw(log_uniform(0.3, 3.0)), draw(zero_points(dtype)))
    return dict(dtype=dtype, shape=shape, axes=axes, keep_dims=draw(st.booleans()), in_quant=in_q, out_quant=out_q)


@given(case=mean_cases())
def test_mean_matches_tflm(case):
    check(mean_model(**case))


MEAN_NAMED = {
    "global average pool (axes 1, 2, keep dims)": dict(in_quant=(0.05, -4), out_quant=(0.05, -4)),
    "global average pool requantized": dict(in_quant=(0.05, 10), out_quant=(0.02, -3)),
    "axes 1, 2 without keep dims": dict(keep_dims=False),
    "last axis negative": dict(shape=(2, 3, 7), axes=(-1,), keep_dims=False),
    "all axes": dict(shape=(2, 3, 4), axes=(0, 1, 2), keep_dims=True),
    "int16": dict(dtype="int16", in_quant=(1e-3, 0), out_quant=(2e-3, 0)),
    "float32 global average pool": dict(dtype="float32"),
    "float32 axis 0": dict(dtype="float32", shape=(5, 3), axes=(0,), keep_dims=False),
}


@pytest.mark.parametrize("case", MEAN_NAMED.values(), ids=MEAN_NAMED.keys())
def test_mean_named(case):
    check(mean_model(**case))


# -- AVERAGE_POOL_2D / MAX_POOL_2D -----------------------------------------------------------------------

@st.composite
def pool_cases(draw) -> dict:
    dtype = draw(DTYPES)
    padding = draw(PADDINGS)
    filter_size = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    h = draw(st.integers(filter_size[0] if padding == "VALID" else 1, 9))
    w = draw(st.integers(filter_size[1] if padding == "VALID" else 1, 9))
    scale, zp = _quant(draw, dtype)
    return dict(op=draw(st.sampled_from(["AVERAGE_POOL_2D", "MAX_POOL_2D"])), dtype=dtype,
                input_shape=(draw(st.integers(1, 2)), h, w, draw(st.integers(1, 5))), filter_size=filter_size,
                stride=(draw(st.integers(1, 3)), draw(st.integers(1, 3))), padding=padding,
                activation=draw(ACTIVATIONS), scale=scale, zero_point=zp)


@given(case=pool_cases())
def test_pool_matches_tflm(case):
    check(pool_model(**case), float_scale=4.0)


POOL_NAMED = {}
for _op, _short in (("AVERAGE_POOL_2D", "avg"), ("MAX_POOL_2D", "max")):
    POOL_NAMED.update({
        f"{_short} 2x2 stride 2 VALID": dict(op=_op, zero_point=-17),
        f"{_short} 3x3 stride 2 SAME (clipped windows)": dict(op=_op, input_shape=(1, 7, 7, 2), filter_size=(3, 3),
                                                              padding="SAME"),
        f"{_short} 3x3 stride 1 SAME": dict(op=_op, filter_size=(3, 3), stride=(1, 1), padding="SAME"),
        f"{_short} global window": dict(op=_op, input_shape=(1, 5, 5, 4), filter_size=(5, 5), stride=(1, 1)),
        f"{_short} RELU6 fused": dict(op=_op, activation="RELU6", scale=0.03, zero_point=-100),
        f"{_short} int16": dict(op=_op, dtype="int16", scale=1e-3, zero_point=0),
        f"{_short} float32 SAME RELU": dict(op=_op, dtype="float32", filter_size=(3, 3), padding="SAME",
                                            activation="RELU"),
    })


@pytest.mark.parametrize("case", POOL_NAMED.values(), ids=POOL_NAMED.keys())
def test_pool_named(case):
    check(pool_model(**case), float_scale=4.0)
