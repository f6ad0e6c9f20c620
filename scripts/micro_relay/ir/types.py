"""Tensor types: a static shape, a dtype and optional quantization.

Everything is known at compile time: shapes are tuples of non-negative ints (no symbolic or unknown
dimensions), and quantization is either per-tensor (one scale, one zero point) or per-channel along `axis`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from math import prod

import numpy as np


class DType(enum.Enum):
    """Element types of Micro Relay tensors, with their C and numpy spellings."""

    INT8 = "int8"
    UINT8 = "uint8"
    INT16 = "int16"
    INT32 = "int32"
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

    def with_shape(self, shape) -> "TensorType":
        return TensorType(tuple(int(d) for d in shape), self.dtype, self.quant)
