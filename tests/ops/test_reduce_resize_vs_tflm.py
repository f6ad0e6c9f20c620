"""Reductions (SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, ARG_MAX, ARG_MIN), L2_NORMALIZATION and the resizes
(RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR) against TFLite Micro.

Integer outputs must match TFLite Micro byte for byte, float ones within 1e-5 of the output's magnitude.
Where TFLite Micro has no kernel (REDUCE_PROD at all, int16 REDUCE_MAX/MIN, int16 ARG_MAX, int64 indices,
int16 bilinear), the oracle is numpy's own reduction, or TFLite Micro's int8 bilinear on int16 inputs that
fit int8 (the integer arithmetic is then the same). Axes, shapes and options are drawn freely within TFLite
Micro's limits; named cases are the shapes real networks have.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from micro_relay.compiler import compile_graph
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.passes import run_pipeline
from support.model_check import compare_with_tflm
from support.tflite_models import check, log_uniform, zero_points
from support.tflite_reduce_models import (arg_model, compiled_outputs, l2norm_model, reduce_model,
                                          resize_model)
from support.tflm_oracle import tflm_run


def _shape(draw, min_rank=1, max_rank=4, max_dim=5) -> tuple[int, ...]:
    return tuple(draw(st.lists(st.integers(1, max_dim), min_size=min_rank, max_size=max_rank)))


def _quant(draw, dtype):
    return draw(log_uniform(0.005, 0.5)), draw(zero_points(dtype))


# -- SUM / REDUCE_MAX / REDUCE_MIN ------------------------------------------------------------------------

@st.composite
def reduce_cases(draw) -> dict:
    op = draw(st.sampled_from(["SUM", "REDUCE_MAX", "REDUCE_MIN"]))
    dtype = draw(st.sampled_from(["int8", "int16", "float32"] if op == "SUM" else ["int8", "float32"]))
    shape = _shape(draw)
    rank = len(shape)
    axes = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    axes = tuple(a - rank if draw(st.booleans()) else a for a in axes)
    in_q = _quant(draw, dtype)
    out_q = in_q
    if op == "SUM":  # a sum of n values needs a coarser output scale to keep its range
        count = int(np.prod([shape[a] for a in axes]))
        out_q = (in_q[0] * draw(log_uniform(0.3, 3.0)) * count ** 0.5, draw(zero_points(dtype)))
    return dict(op=op, dtype=dtype, shape=shape, axes=axes, keep_dims=draw(st.booleans()), in_quant=in_q,
                out_quant=out_q)


@given(case=reduce_cases())
def test_reduce_matches_tflm(case):
    check(reduce_model(**case))


REDUCE_NAMED = {
    "sum global [1,7,7,1280] int8": dict(shape=(1, 7, 7, 1280), in_quant=(0.05, -3), out_quant=(0.8, 5)),
    "sum global [1,7,7,1280] float32": dict(dtype="float32", shape=(1, 7, 7, 1280)),
    "sum int16 over channels": dict(dtype="int16", shape=(1, 49, 10, 1), axes=(1,), keep_dims=False,
                                    in_quant=(1e-3, 0), out_quant=(2e-2, 0)),
    "sum int8 that saturates": dict(shape=(1, 16, 8), axes=(1,), in_quant=(0.05, 0), out_quant=(0.05, 0)),
    "sum with a scalar axis": dict(shape=(2, 3, 4), axes=(1,), scalar_axis=True, out_quant=(0.1, 1)),
    "max global [1,7,7,1280] int8": dict(op="REDUCE_MAX", shape=(1, 7, 7, 1280), in_quant=(0.05, -10)),
    "max float32 last axis": dict(op="REDUCE_MAX", dtype="float32", shape=(1, 12), axes=(-1,), keep_dims=False),
    "min [1,49,10,1] time axis": dict(op="REDUCE_MIN", shape=(1, 49, 10, 1), axes=(1,), in_quant=(0.1, 7)),
    "min float32 all axes": dict(op="REDUCE_MIN", dtype="float32", shape=(2, 3, 4), axes=(0, 1, 2)),
}


@pytest.mark.parametrize("case", REDUCE_NAMED.values(), ids=REDUCE_NAMED.keys())
def test_reduce_named(case):
    check(reduce_model(**({"op": "SUM"} | case)))


def test_float_max_min_skip_nan_and_start_at_flt_max():
    """TFLite folds `in > acc ? in : acc` from -FLT_MAX: NaNs never win and -inf rows give -FLT_MAX."""
    x = np.array([[np.nan, 1.0, -2.0], [-np.inf, -np.inf, -np.inf], [np.inf, np.nan, 3.0]], np.float32)
    for op in ("REDUCE_MAX", "REDUCE_MIN"):
        result = compare_with_tflm(reduce_model(op, "float32", shape=(3, 3), axes=(1,), keep_dims=False),
                                   samples=[[x]])
        want = np.asarray(result.tflm[0][0])
        np.testing.assert_array_equal(result.compiled[0][0], want)  # exact: infinities defeat a tolerance
        np.testing.assert_array_equal(result.reference[0][0], want)


def test_what_tflm_lacks_matches_numpy(tmp_path):
    """int16 REDUCE_MAX/MIN and float REDUCE_PROD have no TFLite Micro kernel: numpy is the oracle."""
    rng = np.random.default_rng(0)
    x16 = rng.integers(-32768, 32768, (2, 3, 4, 5)).astype(np.int16)
    for op, fn in (("REDUCE_MAX", np.max), ("REDUCE_MIN", np.min)):
        model = reduce_model(op, "int16", shape=x16.shape, axes=(1, 3), keep_dims=False, in_quant=(1e-3, 0))
        (got,), = compiled_outputs(model, [[x16]], tmp_path / op)
        np.testing.assert_array_equal(got, fn(x16, axis=(1, 3)))
    xf = (rng.standard_normal((2, 6, 4)) * 0.5 + 1).astype(np.float32)
    model = reduce_model("REDUCE_PROD", "float32", shape=xf.shape, axes=(1,), keep_dims=True)
    (got,), = compiled_outputs(model, [[xf]], tmp_path / "prod")
    np.testing.assert_allclose(got, np.prod(xf.astype(np.float64), axis=1, keepdims=True), rtol=1e-5)


def test_integer_prod_is_refused_in_one_line():
    with pytest.raises(CompileError) as info:
        compile_graph(run_pipeline(read_tflite(reduce_model("REDUCE_PROD", "int8"), "m")), "m", "m")
    assert "prod runs float32" in str(info.value) and "\n" not in str(info.value)


# -- ARG_MAX / ARG_MIN ------------------------------------------------------------------------------------

@st.composite
def arg_cases(draw) -> dict:
    dtype = draw(st.sampled_from(["int8", "float32"]))
    shape = _shape(draw)
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    return dict(op=draw(st.sampled_from(["ARG_MAX", "ARG_MIN"])), dtype=dtype, shape=shape, axis=axis,
                quant=_quant(draw, dtype))


@given(case=arg_cases(), ties=st.booleans())
def test_arg_matches_tflm(case, ties):
    """`ties` draws inputs from a few values, so equal maxima (first index wins) are common."""
    samples = None
    if ties:
        rng = np.random.default_rng(0)
        samples = [[rng.integers(-2, 3, case["shape"]).astype(case["dtype"])] for _ in range(2)]
    check(arg_model(**case), samples=samples)


ARG_NAMED = {
    "keyword score argmax [1,12] int8": dict(),
    "keyword score argmax [1,12] float32": dict(dtype="float32"),
    "argmin over channels [1,8,8,32]": dict(op="ARG_MIN", shape=(1, 8, 8, 32), axis=3),
    "argmax over rows": dict(shape=(4, 10), axis=0),
}


@pytest.mark.parametrize("case", ARG_NAMED.values(), ids=ARG_NAMED.keys())
def test_arg_named(case):
    check(arg_model(**case))


def test_float_arg_nan_as_tflm():
    """Plain comparisons (TFLite Micro's GreaterFn / LessFn): a NaN first element is never beaten."""
    x = np.array([[np.nan, 1.0, 2.0, np.nan, 2.0], [0.0, np.nan, -1.0, 5.0, 5.0]], np.float32)
    for op in ("ARG_MAX", "ARG_MIN"):
        check(arg_model(op, "float32", shape=(2, 5)), samples=[[x]])


def test_what_tflm_lacks_for_arg_matches_numpy(tmp_path):
    """int64 indices, int64 axis tensors and int16 inputs have no TFLite Micro kernel: numpy's argmax and
    argmin (first index on ties, as TFLite) are the oracle."""
    rng = np.random.default_rng(2)
    x16 = rng.integers(-4, 5, (3, 7, 5)).astype(np.int16)  # few values: many ties
    x8 = rng.integers(-128, 128, (2, 12)).astype(np.int8)
    cases = [("ARG_MAX", x16, 1, "int32", "int32", np.argmax), ("ARG_MIN", x16, -1, "int64", "int32", np.argmin),
             ("ARG_MAX", x8, 1, "int64", "int64", np.argmax)]
    for k, (op, x, axis, index, axis_dtype, fn) in enumerate(cases):
        model = arg_model(op, str(x.dtype), shape=x.shape, axis=axis, index=index, axis_dtype=axis_dtype,
                          quant=(1e-3, 0))
        (got,), = compiled_outputs(model, [[x]], tmp_path / str(k))
        assert got.dtype == np.dtype(index)
        np.testing.assert_array_equal(got, fn(x, axis=axis))


# -- RESIZE_NEAREST_NEIGHBOR / RESIZE_BILINEAR -------------------------------------------------------------

@st.composite
def resize_cases(draw) -> dict:
    op = draw(st.sampled_from(["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"]))
    dtypes = ["int8", "float32"] + (["int16"] if op == "RESIZE_NEAREST_NEIGHBOR" else [])
    dtype = draw(st.sampled_from(dtypes))
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 9)), draw(st.integers(1, 9)), draw(st.integers(1, 4)))
    size = (draw(st.integers(1, 20)), draw(st.integers(1, 20)))
    mode = draw(st.sampled_from(["plain", "align_corners", "half_pixel_centers"]))
    return dict(op=op, dtype=dtype, shape=shape, size=size, align_corners=mode == "align_corners",
                half_pixel_centers=mode == "half_pixel_centers", quant=_quant(draw, dtype))


@given(case=resize_cases())
def test_resize_matches_tflm(case):
    check(resize_model(**case))


RESIZE_NAMED = {
    "2x bilinear upsampling [1,12,12,32] int8": dict(),
    "2x bilinear upsampling, half pixel centers": dict(half_pixel_centers=True, quant=(0.1, -20)),
    "2x bilinear upsampling float32": dict(dtype="float32"),
    "bilinear align corners 7 -> 13 float32": dict(dtype="float32", shape=(1, 7, 7, 8), size=(13, 13),
                                                   align_corners=True),
    "bilinear downsampling [1,96,96,1] -> 48x48": dict(shape=(1, 96, 96, 1), size=(48, 48)),
    "2x nearest upsampling [1,12,12,32] int8": dict(op="RESIZE_NEAREST_NEIGHBOR"),
    "nearest int16 half pixel 5 -> 16": dict(op="RESIZE_NEAREST_NEIGHBOR", dtype="int16", shape=(1, 5, 5, 3),
                                              size=(16, 16), half_pixel_centers=True, quant=(1e-3, 0)),
    "nearest float32 align corners 3x4 -> 8x6": dict(op="RESIZE_NEAREST_NEIGHBOR", dtype="float32",
                                                     shape=(2, 3, 4, 2), size=(8, 6), align_corners=True),
}


@pytest.mark.parametrize("case", RESIZE_NAMED.values(), ids=RESIZE_NAMED.keys())
def test_resize_named(case):
    check(resize_model(**case))


def test_int16_bilinear_is_tflm_int8_arithmetic(tmp_path):
    """TFLite Micro has no int16 bilinear; TFLite's integer template is the same for int16, so on values that
    fit int8 the int16 result must equal TFLite Micro's int8 one."""
    x = np.random.default_rng(3).integers(-128, 128, (1, 5, 6, 3))
    for k, (align, half) in enumerate(((False, False), (True, False), (False, True))):
        kw = dict(shape=x.shape, size=(11, 9), align_corners=align, half_pixel_centers=half)
        (got,), = compiled_outputs(resize_model(dtype="int16", quant=(0.01, 0), **kw), [[x.astype(np.int16)]],
                                   tmp_path / str(k))
        want = tflm_run(resize_model(dtype="int8", quant=(0.01, 0), **kw), [x.astype(np.int8)])[0]
        np.testing.assert_array_equal(got, want.astype(np.int16))


def test_resize_that_reads_outside_the_input_is_refused_in_one_line():
    """1 -> 600 rows: TFLite's rounded 10-bit scale (2/1024 per row) overshoots the single input row."""
    with pytest.raises(CompileError) as info:
        compile_graph(run_pipeline(read_tflite(resize_model(shape=(1, 1, 1, 1), size=(600, 1)), "m")), "m", "m")
    assert "reads outside the input" in str(info.value) and "\n" not in str(info.value)


# -- L2_NORMALIZATION -----------------------------------------------------------------------------------

@st.composite
def l2norm_cases(draw) -> dict:
    dtype = draw(st.sampled_from(["int8", "float32"]))
    return dict(dtype=dtype, shape=_shape(draw, max_dim=7), in_quant=_quant(draw, dtype))


@given(case=l2norm_cases())
def test_l2norm_matches_tflm(case):
    check(l2norm_model(**case))


L2NORM_NAMED = {
    "embedding [1,128] int8": dict(shape=(1, 128), in_quant=(0.02, 3)),
    "pooled [1,1,1,1280] int8": dict(shape=(1, 1, 1, 1280), in_quant=(0.05, -128)),
    "pooled [1,1,1,1280] float32": dict(dtype="float32", shape=(1, 1, 1, 1280)),
    "one value per row": dict(shape=(6, 1), in_quant=(0.1, 0)),
}


@pytest.mark.parametrize("case", L2NORM_NAMED.values(), ids=L2NORM_NAMED.keys())
def test_l2norm_named(case):
    check(l2norm_model(**case))


def test_l2norm_edges_match_tflm():
    """Rows equal to the zero point (sum 0), one step off (sum 1), and the largest int8 sums."""
    x = np.full((3, 300), 5, np.int8)
    x[1, 0] = 6
    x[2] = np.where(np.arange(300) % 2, 127, -128)
    check(l2norm_model("int8", (3, 300), (0.05, 5)), samples=[[x]])
    f = np.zeros((2, 4), np.float32)
    f[1, 0] = 1e-8  # below TFLite's epsilon: divided by 1e-6
    check(l2norm_model("float32", (2, 4)), samples=[[f]])
