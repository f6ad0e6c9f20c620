"""Helpers of the reductions (mean, sum, max, min, prod, argmax, argmin): axes, output shape and the
fixed-rank view the kernels walk.

The C kernels see the input as kept axes (in output order) by reduced axes (in input order), each padded
to MAX_DIMS with outer size-1 axes, with element steps. Size-1 axes are dropped and neighbours of the same
kind merged, so the NHWC global pool [1, 7, 7, 1280] is kept [1280] by reduced [49]. Each output walks its
reduced box in row-major order, which is the order TFLite's Reduce visits an output's elements in.
"""

from __future__ import annotations

import numpy as np

from ..arith.multiplier import f32
from ..ir.registry import Attr, OpDef
from ..ir.types import FLT_MAX, DType, TensorType
from ._common import fail, kernel_suffix, out_type, require_quant, types
from ._pooling import left_pad, row_major_steps

MAX_DIMS = 4  # MR_MEAN_MAX_DIMS and MR_REDUCE_MAX_DIMS in the C headers


def reduce_axes(graph, node) -> tuple[int, ...]:
    """The `axis` attribute as sorted, unique, non-negative axes of input 0."""
    data = types(graph, node)[0]
    rank = data.rank
    axes = [int(a) for a in node.attrs["axis"]]
    if not axes or any(not -rank <= a < rank for a in axes):
        fail(graph, node, f"{node.op} axes {axes} are not axes of a rank-{rank} tensor")
    if 0 in data.shape:
        fail(graph, node, f"{node.op} over an empty tensor {list(data.shape)}")
    return tuple(sorted({a % rank for a in axes}))


def reduce_infer(graph, node, dtype=None) -> list[TensorType]:
    """Output type: reduced axes become 1 (keepdims) or vanish; quantization is the output's own."""
    data = types(graph, node)[0]
    axes = reduce_axes(graph, node)
    if node.attrs.get("keepdims", False):
        shape = tuple(1 if a in axes else d for a, d in enumerate(data.shape))
    else:
        shape = tuple(d for a, d in enumerate(data.shape) if a not in axes)
    out = out_type(graph, node)
    return [TensorType(shape, dtype or data.dtype, out.quant if out is not None else None)]


def split(shape, axes) -> tuple[list[int], list[int], list[int], list[int]]:
    """Kept and reduced (dims, steps), size-1 axes dropped and neighbours of the same kind merged."""
    groups: list[list[int]] = []  # [dim, step, reduced]
    for axis, (dim, step) in enumerate(zip(shape, row_major_steps(shape))):
        if dim == 1:
            continue
        reduced = int(axis in axes)
        if groups and groups[-1][2] == reduced:  # contiguous layout: the outer step is dim * inner step
            groups[-1][0] *= dim
            groups[-1][1] = step
        else:
            groups.append([dim, step, reduced])
    kept = [g for g in groups if not g[2]]
    red = [g for g in groups if g[2]]
    return [g[0] for g in kept], [g[1] for g in kept], [g[0] for g in red], [g[1] for g in red]


def view_params(graph, node) -> dict:
    """The kernels' view of input 0 (see the module docstring), the axes and the elements per output."""
    data = types(graph, node)[0]
    axes = reduce_axes(graph, node)
    kept_dims, kept_steps, red_dims, red_steps = split(data.shape, axes)
    if len(kept_dims) > MAX_DIMS or len(red_dims) > MAX_DIMS:
        fail(graph, node, f"{node.op} over axes {list(axes)} of {list(data.shape)} needs more than {MAX_DIMS} "
                          f"kept or reduced dimensions")
    count = int(np.prod([data.shape[a] for a in axes], dtype=np.int64))
    return {"axes": axes, "count": count,
            "outer_dims": left_pad(kept_dims, MAX_DIMS, 1), "outer_steps": left_pad(kept_steps, MAX_DIMS, 0),
            "inner_dims": left_pad(red_dims, MAX_DIMS, 1), "inner_steps": left_pad(red_steps, MAX_DIMS, 0)}


def rows(x: np.ndarray, p: dict) -> np.ndarray:
    """[outputs, count]: each output's elements in the order the kernels visit them."""
    axes = p["axes"]
    kept = [a for a in range(x.ndim) if a not in axes]
    return np.transpose(x, kept + list(axes)).reshape(-1, p["count"])


def fold(values: np.ndarray, init, step) -> np.ndarray:
    """Apply `step(acc, column)` across the columns of [outputs, count] in order, from `init`."""
    acc = np.full(values.shape[0], init, dtype=values.dtype)
    for j in range(values.shape[1]):
        acc = step(acc, values[:, j]).astype(values.dtype)
    return acc


# --- the ops' shared prepare/reference ----------------------------------------------------------------

REDUCE_ATTRS = {"axis": Attr(tuple), "keepdims": Attr(bool, False)}


def same_type_prepare(graph, node, allowed: tuple) -> tuple[dict, object, object]:
    """View params plus the kernel suffix, for a reduction whose output type is its input's."""
    data, out = types(graph, node)[0], out_type(graph, node)
    if data.dtype != out.dtype or data.dtype not in allowed:
        names = ", ".join(d.value for d in allowed)
        fail(graph, node, f"{node.op} runs {names} to the same type, got {data.dtype.value} -> {out.dtype.value}")
    require_quant(graph, node, data, "input")
    require_quant(graph, node, out, "output")
    return {**view_params(graph, node), "kind": kernel_suffix(data.dtype)}, data, out


class MinMax(OpDef):
    """max and min (TFLite REDUCE_MAX / REDUCE_MIN): raw values, so int8/int16 need equal quantization in
    and out (TFLite Micro checks float scale and zero point equality). Floats fold with `v > acc ? v : acc`
    from -FLT_MAX (min: `<` from FLT_MAX): NaNs are skipped, an all -inf box gives -FLT_MAX."""

    attrs = REDUCE_ATTRS
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    greater: bool = True

    def infer(self, graph, node):
        return reduce_infer(graph, node)

    def prepare(self, graph, node):
        p, data, out = same_type_prepare(graph, node, self.dtypes)
        if not data.dtype.is_float and (f32(data.quant.scale) != f32(out.quant.scale)
                                        or data.quant.zero_point != out.quant.zero_point):
            fail(graph, node, f"{node.op} needs equal input and output quantization (TFLite Micro does not rescale): "
                              f"input ({data.quant.scale}, {data.quant.zero_point}), "
                              f"output ({out.quant.scale}, {out.quant.zero_point})")
        return p

    def reference(self, graph, node, p, inputs):
        x, out = inputs[0], out_type(graph, node)
        if x.dtype == np.float32:
            init = np.float32(FLT_MAX) * np.float32(-1 if self.greater else 1)
        else:
            init = np.iinfo(x.dtype).min if self.greater else np.iinfo(x.dtype).max
        if self.greater:
            result = fold(rows(x, p), init, lambda acc, v: np.where(v > acc, v, acc))
        else:
            result = fold(rows(x, p), init, lambda acc, v: np.where(v < acc, v, acc))
        return [result.reshape(out.shape)]


class ArgMinMax(OpDef):
    """argmax and argmin (TFLite ARG_MAX / ARG_MIN, R/arg_min_max.h): along `axis`, the index of the first
    element no later element beats (`>` for argmax, `<` for argmin: ties keep the first index). Floats too
    (TFLite Micro's GreaterFn / LessFn): a NaN never wins, and a NaN first element is never beaten. Values
    are compared raw, so quantization does not matter. The index is int32 or int64 (TFLite Micro itself
    writes int32 only); keepdims leaves the axis as size 1."""

    attrs = {"axis": Attr(int), "keepdims": Attr(bool, False)}
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    greater: bool = True

    def _axis(self, graph, node) -> int:
        data = types(graph, node)[0]
        axis = int(node.attrs["axis"])
        if not -data.rank <= axis < data.rank:
            fail(graph, node, f"{node.op} axis {axis} is not an axis of a rank-{data.rank} tensor")
        if 0 in data.shape:
            fail(graph, node, f"{node.op} over an empty tensor {list(data.shape)}")
        return axis % data.rank

    def infer(self, graph, node):
        data, axis = types(graph, node)[0], self._axis(graph, node)
        if node.attrs.get("keepdims", False):
            shape = tuple(1 if a == axis else d for a, d in enumerate(data.shape))
        else:
            shape = tuple(d for a, d in enumerate(data.shape) if a != axis)
        return [TensorType(shape, out_type(graph, node).dtype)]

    def prepare(self, graph, node):
        data, out = types(graph, node)[0], out_type(graph, node)
        if data.dtype not in self.dtypes or out.dtype not in (DType.INT32, DType.INT64):
            fail(graph, node, f"{node.op} runs int8, int16 or float32 to int32 or int64 indices, got "
                              f"{data.dtype.value} -> {out.dtype.value}")
        axis = self._axis(graph, node)
        shape = data.shape
        return {"axis": axis, "outer": int(np.prod(shape[:axis], dtype=np.int64)), "axis_size": int(shape[axis]),
                "inner": int(np.prod(shape[axis + 1:], dtype=np.int64)), "kind": kernel_suffix(data.dtype),
                "index_kind": "s32" if out.dtype is DType.INT32 else "s64"}

    def reference(self, graph, node, p, inputs):
        x, out = inputs[0], out_type(graph, node)
        view = x.reshape(p["outer"], p["axis_size"], p["inner"])
        best, index = view[:, 0, :].copy(), np.zeros((p["outer"], p["inner"]), np.int64)
        for i in range(1, p["axis_size"]):
            v = view[:, i, :]
            beats = v > best if self.greater else v < best
            best = np.where(beats, v, best)
            index = np.where(beats, i, index)
        return [index.astype(out.dtype.numpy).reshape(out.shape)]
