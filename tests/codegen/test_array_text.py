"""Weight arrays rendered in chunks (codegen/arrays.py render_array) are the text the one-string-per-value
initializer (codegen/c_text.py array_initializer) writes, byte for byte, and that text reads back as the
values: Python's own int()/float() parse every literal, the oracle independent of both renderers."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from micro_relay.codegen import arrays
from micro_relay.codegen.c_text import array_initializer
from micro_relay.ir.types import DType

INTEGER = [DType.INT8, DType.UINT8, DType.INT16, DType.INT32, DType.INT64, DType.BOOL]


def parse(text: str, dtype: DType) -> list:
    body = text[1:-1].strip()
    if body == "0" and text == "{0}":
        return []
    items = [item.strip() for item in body.split(",")]
    if dtype.is_float:
        names = {"INFINITY": "inf", "-INFINITY": "-inf", "FLT_MAX": "3.4028235e38", "-FLT_MAX": "-3.4028235e38"}
        return [float(names.get(item.strip("()"), item.rstrip("f"))) for item in items]
    values = []
    for item in items:
        wrapped = re.fullmatch(r"INT64_C\((-?\d+)\)", item)
        values.append(-(1 << 31) if item == "(-2147483647 - 1)" else int(wrapped.group(1) if wrapped else item))
    return values


SMALL_CHUNK = 64  # chunk edges at sizes a test can afford (a chunk is a whole number of 16-value lines)


@pytest.mark.parametrize("dtype", INTEGER, ids=lambda d: d.value)
@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 33, SMALL_CHUNK - 1, SMALL_CHUNK, SMALL_CHUNK + 16,
                                  2 * SMALL_CHUNK + 5, 3000])
def test_chunks_match_the_reference_and_read_back(dtype, size, monkeypatch):
    monkeypatch.setattr(arrays, "CHUNK", SMALL_CHUNK)
    rng = np.random.default_rng(size)
    if dtype == DType.BOOL:
        values = rng.integers(0, 2, size).astype(bool)
    else:
        info = np.iinfo(dtype.numpy)
        values = rng.integers(info.min, info.max, size, endpoint=True, dtype=dtype.numpy)
        values[:2] = [info.min, info.max][:size]
    text = arrays.render_array(values, dtype)
    assert text == array_initializer(values, dtype)
    assert parse(text, dtype) == [int(v) for v in values]


@given(hnp.arrays(np.float32, st.integers(0, 40), elements=st.floats(width=32, allow_nan=False)))
def test_floats_match_the_reference_and_read_back(values):
    values[:3] = [np.inf, -np.inf, np.finfo(np.float32).max][:values.size]
    text = arrays.render_array(values, DType.FLOAT32)
    assert text == array_initializer(values, DType.FLOAT32)
    assert [np.float32(v) for v in parse(text, DType.FLOAT32)] == list(values)


@given(st.sampled_from([DType.INT8, DType.UINT8, DType.INT16]), st.lists(st.integers(-70_000, 70_000), max_size=40))
def test_values_outside_a_narrow_type_are_written_as_they_are(dtype, values):
    """const_array may hand wider values with a narrow C type; the text keeps them, as the reference does."""
    array = np.array(values, dtype=np.int64)
    assert arrays.render_array(array, dtype) == array_initializer(array, dtype)
