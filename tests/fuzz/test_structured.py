"""Structured fuzzing: hypothesis draws hostile fields (scales, zero points, shapes, strides, dilations,
filter sizes, indices, axes, names, options types) into models written with the project's TFLite writer.

Every model must end in a CompileError with one printable line that names the field's tensor or operator,
or in a compile; some compiled models are built with -Werror. Any other exception fails the test with the
drawn example. The profile (tests/conftest.py) sets how many examples each property draws.
"""

from __future__ import annotations

import shutil
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzz.mutations import FLOAT_VALUES, INT32_VALUES, field_slots
from fuzz.outcome import c_build_problem, compile_bytes
from micro_relay.frontend.tflite.writer import TFLiteBuilder

GCC = shutil.which("gcc")
INT32_MAX = 2 ** 31 - 1

scales = st.one_of(st.sampled_from(FLOAT_VALUES), st.floats(allow_nan=True, allow_infinity=True, width=32),
                   st.floats(1e-6, 10.0))
zero_points = st.one_of(st.integers(-128, 127), st.sampled_from([128, -129, 255, 1000, INT32_MAX, 2 ** 40, -2 ** 63]))
ints32 = st.one_of(st.sampled_from(INT32_VALUES), st.integers(-2 ** 31, INT32_MAX))
small_or_hostile = st.one_of(st.integers(1, 4), st.sampled_from([0, -1, 255, 65535, 1 << 24, INT32_MAX]))
names = st.text(st.sampled_from(list("ab_/*\n\r\\?\"'\x00\x1b")), min_size=1, max_size=8)


def check(data: bytes, tmp_path, build: bool) -> str:
    """Compile `data`; a bug (anything but a clean error or a compile) fails with the outcome's detail."""
    outcome = compile_bytes(data)
    assert outcome.kind in ("error", "compiled"), outcome.detail
    if outcome.kind == "error":
        assert "\n" not in outcome.detail and outcome.detail.startswith("error: "), outcome.detail
        assert outcome.detail.endswith(")"), outcome.detail  # a location: tensor, op or file
    elif build and GCC:
        assert c_build_problem(outcome, tmp_path / "c") is None
    return outcome.kind


@settings(max_examples=40)
@given(in_scale=scales, w_scale=scales, out_scale=scales, in_zp=zero_points, w_zp=zero_points, out_zp=zero_points,
       bias_dtype=st.sampled_from(["int32", "float32", "int8", "int64"]), per_channel=st.booleans(),
       activation=st.sampled_from(["NONE", "RELU", "RELU6", "RELU_N1_TO_1"]))
def test_fully_connected_quantization(tmp_path_factory, in_scale, w_scale, out_scale, in_zp, w_zp, out_zp,
                                      bias_dtype, per_channel, activation):
    b = TFLiteBuilder()
    q = lambda s, z: {"scale": s, "zero_point": z}  # noqa: E731
    x = b.tensor("x", (1, 8), "int8", **q(in_scale, in_zp))
    w_q = q([w_scale] * 4, w_zp) if per_channel else q(w_scale, w_zp)
    w = b.tensor("w", (4, 8), "int8", data=np.arange(32).reshape(4, 8) - 16, axis=0 if per_channel else None, **w_q)
    bias = b.tensor("b", (4,), bias_dtype, data=np.arange(4))
    y = b.tensor("y", (1, 4), "int8", **q(out_scale, out_zp))
    b.op("FULLY_CONNECTED", [x, w, bias], [y], activation=activation)
    check(b.build(), tmp_path_factory.mktemp("fc"), build=False)


@settings(max_examples=40)
@given(h=small_or_hostile, kh=small_or_hostile, out_h=small_or_hostile,
       stride=st.tuples(small_or_hostile, small_or_hostile), dilation=st.tuples(small_or_hostile, small_or_hostile),
       padding=st.sampled_from(["SAME", "VALID"]), depthwise=st.booleans())
def test_convolution_geometry(tmp_path_factory, h, kh, out_h, stride, dilation, padding, depthwise):
    """Hostile input heights, filter heights, output heights (patched into the shapes after writing: the
    writer would need a filter's data), strides and dilations: the geometry may be inconsistent too, which
    must be a clean error as well."""
    b = TFLiteBuilder()
    w_shape = (1, 3, 3, 3) if depthwise else (3, 3, 3, 3)
    x = b.tensor("x", (1, 6, 6, 3), "float32")
    w = b.tensor("w", w_shape, "float32", data=np.ones(w_shape))
    y = b.tensor("y", (1, 4, 4, 3), "float32")
    b.op("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [x, w], [y], padding=padding, stride=stride,
         dilation=dilation)
    data = b.build()
    for slot, value in ((1, h), (5, kh), (9, out_h)):  # shape fields: x's height, w's height, y's height
        data = _patch(data, "shape", value, slot)
    check(data, tmp_path_factory.mktemp("conv"), build=False)


@settings(max_examples=30)
@given(filter_size=st.tuples(small_or_hostile, small_or_hostile), stride=st.tuples(small_or_hostile, small_or_hostile),
       padding=st.sampled_from(["SAME", "VALID"]), op=st.sampled_from(["AVERAGE_POOL_2D", "MAX_POOL_2D"]),
       out=st.tuples(st.integers(1, 8), st.integers(1, 8)))
def test_pooling_geometry(tmp_path_factory, filter_size, stride, padding, op, out):
    b = TFLiteBuilder()
    x = b.tensor("x", (1, 8, 8, 2), "int8", scale=0.05, zero_point=0)
    y = b.tensor("y", (1, *out, 2), "int8", scale=0.05, zero_point=0)
    b.op(op, [x], [y], filter_size=filter_size, stride=stride, padding=padding)
    check(b.build(), tmp_path_factory.mktemp("pool"), build=False)


@settings(max_examples=30)
@given(axis=ints32, shapes=st.lists(st.tuples(st.integers(1, 3), st.integers(1, 3)), min_size=1, max_size=3),
       out=st.tuples(st.integers(1, 6), st.integers(1, 6)))
def test_concatenation_axis(tmp_path_factory, axis, shapes, out):
    b = TFLiteBuilder()
    inputs = [b.tensor(f"x{i}", (1, *s), "float32") for i, s in enumerate(shapes)]
    y = b.tensor("y", (1, *out), "float32")
    b.op("CONCATENATION", inputs, [y], axis=axis)
    check(b.inputs(*inputs).outputs(y).build(), tmp_path_factory.mktemp("concat"), build=False)


@settings(max_examples=30)
@given(field=st.sampled_from(["tensor_index", "graph_io", "opcode_index", "options_type", "buffer_index",
                              "quant_axis", "tensor_type"]),
       value=ints32, occurrence=st.integers(0, 20))
def test_index_and_tag_fields(tmp_path_factory, field, value, occurrence):
    """Tensor, buffer and opcode indices, the options union's tag, the quantized axis and the tensor type of a
    small int8 convolution, each set to a hostile value."""
    from support.tflite_models import conv2d_model

    data = conv2d_model(per_channel=True)
    slots = field_slots(data)[field]
    if slots:
        data = _patch(data, field, value, occurrence % len(slots))
    check(data, tmp_path_factory.mktemp("index"), build=False)


@pytest.mark.skipif(GCC is None, reason="gcc is not installed")
@settings(max_examples=15)
@given(tensor_names=st.lists(names, min_size=4, max_size=4, unique=True))
def test_names_in_errors_and_c(tmp_path_factory, tensor_names):
    """Any name compiles to C that builds with -Werror, and keeps an error on one line."""
    b = TFLiteBuilder()
    x = b.tensor(tensor_names[0], (1, 4), "float32")
    w = b.tensor(tensor_names[1], (2, 4), "float32", data=np.ones((2, 4)))
    bias = b.tensor(tensor_names[2], (2,), "float32", data=np.ones(2))
    y = b.tensor(tensor_names[3], (1, 2), "float32")
    b.op("FULLY_CONNECTED", [x, w, bias], [y])
    assert check(b.build(), tmp_path_factory.mktemp("names"), build=True) == "compiled"
    bad = TFLiteBuilder()
    x = bad.tensor(tensor_names[0], (1, 4), "int8", scale=0.0, zero_point=0)
    y = bad.tensor(tensor_names[3], (1, 4), "int8", scale=0.1, zero_point=0)
    bad.op("RELU", [x], [y])
    assert check(bad.build(), tmp_path_factory.mktemp("names"), build=False) == "error"


def _patch(data: bytes, kind: str, value: int, occurrence: int) -> bytes:
    pos, fmt = field_slots(data)[kind][occurrence]
    buf = bytearray(data)
    if fmt in ("<b", "<B"):
        value = value % 256 - (128 if fmt == "<b" else 0)
    elif fmt == "<I":
        value &= 0xFFFFFFFF
    struct.pack_into(fmt, buf, pos, value)
    return bytes(buf)
