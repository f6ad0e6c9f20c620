"""Tensor types: a static shape, a dtype and optional quantization.

Everything is known at compile time: shapes are tuples of non-negative ints (no symbolic or unknown
dimensions), and quantization is either per-tensor (one scale, one zero point) or per-channel along `axis`.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from math import prod

import numpy as np


class DType(enum.Enum):
    """Element types of Micro Relay tensors, with their C and numpy spellings."""

    INT8 = "int8"
    UINT8 = "uint8"
    INT16 = "int16"
    INT32 = "int32"
    UINT32 = "uint32"
    INT64 = "int64"
    FLOAT32 = "float32"
    BOOL = "bool"

    @property
    def itemsize(self) -> int:
        return np.dtype(self.numpy).itemsize

    @property
    def numpy(self) -> np.dtype:
        return np.dtype(np.bool_ if self is DType.BOOL else self.value)

    @property
    def c_type(self) -> str:
        return {
            DType.INT8: "int8_t",
            DType.UINT8: "uint8_t",
            DType.INT16: "int16_t",
            DType.INT32: "int32_t",
            DType.UINT32: "uint32_t",
            DType.INT64: "int64_t",
            DType.FLOAT32: "float",
            DType.BOOL: "uint8_t",
        }[self]

    @property
    def is_float(self) -> bool:
        return self is DType.FLOAT32

    @property
    def min(self) -> int:
        return int(np.iinfo(self.numpy).min)

    @property
    def max(self) -> int:
        return int(np.iinfo(self.numpy).max)

    @classmethod
    def parse(cls, text: str) -> "DType":
        try:
            return cls(text)
        except ValueError:
            raise ValueError(f"unknown dtype {text!r}") from None


INT32_MAX = (1 << 31) - 1
# The generated C and the runtime index elements and bytes with int32 and a 32-bit target's size_t: no
# dimension, tensor or arena may need more.
MAX_TENSOR_BYTES = INT32_MAX
FLT_MIN_NORMAL = float(np.finfo(np.float32).tiny)  # scales below it overflow 1/scale in float32 (TFLite does 1/scale)
FLT_MAX = float(np.finfo(np.float32).max)


@dataclass(frozen=True)
class Quant:
    """Affine quantization real = scale * (q - zero_point); per-channel along `axis` when len(scales) > 1."""

    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    axis: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "scales", tuple(float(s) for s in self.scales))
        object.__setattr__(self, "zero_points", tuple(int(z) for z in self.zero_points))
        if self.axis is not None:
            object.__setattr__(self, "axis", int(self.axis))
        if len(self.scales) != len(self.zero_points):
            raise ValueError("quantization needs as many zero points as scales")
        if not self.scales:
            raise ValueError("quantization needs at least one scale")

    @property
    def per_channel(self) -> bool:
        return self.axis is not None

    @property
    def scale(self) -> float:
        """The per-tensor scale (the first channel's for per-channel tensors, as TFLite Micro reads it)."""
        return self.scales[0]

    @property
    def zero_point(self) -> int:
        return self.zero_points[0]

    @classmethod
    def tensor(cls, scale: float, zero_point: int) -> "Quant":
        return cls((float(scale),), (int(zero_point),), None)

    def problem(self, shape: tuple[int, ...], dtype: "DType") -> str | None:
        """What makes these parameters unusable on a tensor of `shape` and `dtype`, or None.

        Scales must be finite, positive float32 normals (kernels divide by them in float32); zero points
        must be values of the dtype (int32 for float and int64 tensors, where the C fields are int32);
        per-channel parameters need an axis inside the shape with one scale per index along it."""
        for index, scale in enumerate(self.scales):
            if not (math.isfinite(scale) and FLT_MIN_NORMAL <= scale <= FLT_MAX):
                channel = f" of channel {index}" if len(self.scales) > 1 else ""
                return f"quantization scale{channel} {scale!r} is not a finite positive float32 normal"
        narrow = dtype in (DType.INT8, DType.UINT8, DType.INT16)
        low, high = (dtype.min, dtype.max) if narrow else (-INT32_MAX - 1, INT32_MAX)
        for index, zero_point in enumerate(self.zero_points):
            if not low <= zero_point <= high:
                channel = f" of channel {index}" if len(self.zero_points) > 1 else ""
                return f"zero point{channel} {zero_point} is outside {dtype.value} [{low}, {high}]"
        if self.axis is None:
            if len(self.scales) != 1:
                return f"{len(self.scales)} quantization scales without a quantized axis"
        elif not 0 <= self.axis < max(len(shape), 1):
            return f"quantized axis {self.axis} is outside a rank-{len(shape)} tensor"
        elif len(self.scales) not in (1, shape[self.axis] if shape else 1):
            return f"{len(self.scales)} per-channel scales for dimension {self.axis} of size {shape[self.axis]}"
        return None


@dataclass(frozen=True)
class TensorType:
    """A static tensor type: shape, dtype and optional quantization."""

    shape: tuple[int, ...]
    dtype: DType
    quant: Quant | None = None

    @property
    def size(self) -> int:
        """Number of elements."""
        return prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def rank(self) -> int:
        return len(self.shape)

    def problem(self) -> str | None:
        """What this type cannot be in generated C (a dimension, byte size or quantization out of range), or
        None. Computed from the shape alone, so a hostile shape is refused before any array is made."""
        if any(not isinstance(d, int) or isinstance(d, bool) or d < 1 for d in self.shape):
            return f"dimension is not a static positive size: {self.shape}"
        size = self.size_problem()
        if size:
            return size
        if self.quant is not None:
            return self.quant.problem(self.shape, self.dtype)
        return None

    def size_problem(self) -> str | None:
        """The part of `problem` a frontend checks first, before reading data: a dimension or byte size over
        what 32-bit fields hold."""
        if any(d > INT32_MAX for d in self.shape) or self.nbytes > MAX_TENSOR_BYTES:
            return (f"{self.dtype.value}{list(self.shape)} needs {self.nbytes} bytes, over the {MAX_TENSOR_BYTES} "
                    "a 32-bit target can index")
        return None

    def with_shape(self, shape) -> "TensorType":
        return TensorType(tuple(int(d) for d in shape), self.dtype, self.quant)
