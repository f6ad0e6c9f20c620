"""What TFLite Micro's signal-library ops share: their type and rank checks, and the integer primitives
(most significant bit, the 16-bit max-abs quirk) that several of them compute."""

from __future__ import annotations

import numpy as np

from ..ir.types import DType, TensorType
from ._common import fail, types


def expect(graph, node, index: int, dtype: DType, rank: int | None = None, what: str = "input") -> TensorType:
    """Input `index`'s type, refused unless it is `dtype` (and `rank`-D when given), as the kernel's Prepare does."""
    t = types(graph, node)[index]
    if t is None:
        fail(graph, node, f"{what} is absent")
    if t.dtype != dtype:
        fail(graph, node, f"{what} must be {dtype.value}, got {t.dtype.value}")
    if rank is not None and t.rank != rank:
        fail(graph, node, f"{what} must be {rank}-D, got shape {list(t.shape)}")
    return t


def expect_output(graph, node, index: int, dtype: DType, shape: tuple[int, ...]) -> TensorType:
    """The declared output type, refused unless it is `dtype` with `shape`: TFLite Micro's kernels write
    exactly that many elements."""
    t = graph.type_of(node.outputs[index])
    if t.dtype != dtype or tuple(t.shape) != tuple(shape):
        fail(graph, node, f"output {index} must be {dtype.value} {list(shape)}, got {t.dtype.value} {list(t.shape)}")
    return TensorType(tuple(shape), dtype, t.quant)


def msb32(x: np.ndarray) -> np.ndarray:
    """Bits needed for x as uint32; 32 for x = 0 (what TFLite Micro's MostSignificantBit32 gives on GCC,
    32 - clz, with clz(0) taken as 0)."""
    x = np.asarray(x, dtype=np.uint64) & 0xFFFFFFFF
    bits = np.zeros(x.shape, dtype=np.int64)
    rest = x.copy()
    for shift in (16, 8, 4, 2, 1):
        big = rest >= (np.uint64(1) << np.uint64(shift))
        bits += np.where(big, shift, 0)
        rest = np.where(big, rest >> np.uint64(shift), rest)
    bits += (rest > 0).astype(np.int64)
    return np.where(x == 0, 32, bits)


def max_abs16(x: np.ndarray) -> int:
    """TFLite Micro's MaxAbs16 on int16: the running maximum of x and -x kept as int16. -(-32768) wraps back
    to -32768, after which any later value replaces it, so an input holding -32768 is walked in order."""
    flat = np.asarray(x, dtype=np.int64).ravel()
    if not (flat == -32768).any():
        return int(np.abs(flat).max(initial=0))
    best = 0
    for value in flat.tolist():
        if value > best:
            best = value
        elif -value > best:
            best = ((-value + 32768) % 65536) - 32768
    return best
