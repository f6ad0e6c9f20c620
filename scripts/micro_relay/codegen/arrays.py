"""Constant arrays as C initializers, fast enough for 50 MB of weights.

A 50 MB weight tensor as one Python string per element (c_text.array_initializer) would take gigabytes, so
arrays are rendered in chunks. Integers of at most 16 bits come from a table of every value's text packed into
a 64-bit word, gathered and masked with numpy; wider integers and floats are rendered per element, a chunk at a
time. The text is array_initializer's to the byte (tests/codegen/test_array_text.py).
"""

from __future__ import annotations

import numpy as np

from ..ir.types import DType

PER_LINE = 16
CHUNK = 1 << 18  # elements per chunk: a few MB of text at a time
_SEPARATORS = (", ", ",\n    ")  # within a line, and after the last value of a line


def render_array(values, dtype: DType) -> str:
    """The C initializer of `values`, as c_text.array_initializer(values, dtype) writes it."""
    flat = np.asarray(values).ravel()
    if flat.size == 0:
        return "{0}"
    pieces: list[bytes] = [b"{\n    "]
    for start in range(0, flat.size, CHUNK):
        pieces.append(_render_chunk(flat[start:start + CHUNK], dtype, start))
    last_sep = _SEPARATORS[(flat.size - 1) % PER_LINE == PER_LINE - 1]
    pieces[-1] = pieces[-1][:len(pieces[-1]) - len(last_sep)]  # no separator after the last value
    pieces.append(b"\n}")
    text = b"".join(pieces)
    del pieces
    return text.decode("ascii")


def _render_chunk(chunk: np.ndarray, dtype: DType, start: int) -> bytes:
    """Each value followed by its separator; `start`, the chunk's first element index, is a multiple of
    PER_LINE."""
    if not dtype.is_float and dtype not in (DType.INT32, DType.INT64, DType.UINT64):
        values = chunk.astype(np.int64)
        if values.min() >= _NARROW_LOW and values.max() <= _NARROW_HIGH:
            return _render_narrow(values)
    line_end = ((np.arange(start, start + chunk.size) % PER_LINE) == PER_LINE - 1).tolist()
    if dtype.is_float:
        from .c_text import float_literal

        items = [float_literal(float(v)) for v in chunk.astype(np.float32)]
    elif dtype == DType.INT64:
        items = [f"INT64_C({int(v)})" for v in chunk.tolist()]
    elif dtype == DType.UINT64:
        items = [f"UINT64_C({int(v)})" for v in chunk.tolist()]
    elif dtype == DType.INT32:
        items = ["(-2147483647 - 1)" if v == -(1 << 31) else str(v) for v in (int(x) for x in chunk.tolist())]
    else:
        items = [str(v) for v in chunk.astype(np.int64).tolist()]
    return "".join(item + _SEPARATORS[end] for item, end in zip(items, line_end)).encode("ascii")


_NARROW_LOW, _NARROW_HIGH = -(1 << 15), (1 << 16) - 1  # int8, uint8, int16, uint16 and bool values
_TABLE: list = []


def _table() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every narrow value's text followed by ", " and by ",", each packed into the 8 bytes of a uint64
    (zero padded), and their lengths."""
    if not _TABLE:
        values = range(_NARROW_LOW, _NARROW_HIGH + 1)
        for suffix in (", ", ","):
            texts = [(str(v) + suffix).encode("ascii") for v in values]
            packed = np.frombuffer(b"".join(t.ljust(8, b"\0") for t in texts), np.uint8).reshape(-1, 8)
            _TABLE.extend([packed.copy().view(np.uint64).reshape(-1), np.array([len(t) for t in texts], np.int64)])
    return tuple(_TABLE)


_LINE_BREAK = np.frombuffer(b"\n    ".ljust(8, b"\0"), np.uint8).copy().view(np.uint64)  # after ",": ",\n    "


def _render_narrow(values: np.ndarray) -> bytes:
    """Table lookups, no Python object per value: a line is 15 x "v, ", then "v," and the line break; a last
    short line is "v, " throughout (render_array drops the final separator)."""
    spaced, spaced_len, comma, comma_len = _table()
    index = values - _NARROW_LOW
    full = index.size // PER_LINE * PER_LINE
    lines = index[:full].reshape(-1, PER_LINE)
    words = np.concatenate([spaced[lines[:, :-1]], comma[lines[:, -1:]],
                            np.broadcast_to(_LINE_BREAK, (lines.shape[0], 1))], axis=1).reshape(-1)
    lengths = np.concatenate([spaced_len[lines[:, :-1]], comma_len[lines[:, -1:]],
                              np.full((lines.shape[0], 1), 5, np.int64)], axis=1).reshape(-1)
    words = np.concatenate([words, spaced[index[full:]]])
    lengths = np.concatenate([lengths, spaced_len[index[full:]]])
    text = words.view(np.uint8).reshape(-1, 8)
    return text[np.arange(8) < lengths[:, None]].tobytes()
