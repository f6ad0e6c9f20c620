"""Helpers of the data-movement ops that only move bytes (broadcast_to, tile, nn.space_to_depth,
nn.depth_to_space, take, gather_nd, nn.mirror_pad, the space/batch ops, full, zeros_like).

Ops whose output is a strided view of their input (out[i...] = in[sum i_k * step_k]) run on the transpose
kernel (crt/src/mr_transpose.c, whose input steps may be 0 or any permutation): `view_params` drops size-1
axes and merges axes that walk the input as one, then pads the view to the kernel's six axes; a view with
more (a tile of every axis of a 4-D tensor) loops over its outer axes around the call.
"""

from __future__ import annotations

from ..ir.types import INT32_MAX, DType
from ._common import fail, out_type, types
from ._pooling import collapse, left_pad, row_major_steps
from .transpose import MAX_DIMS as VIEW_MAX_DIMS

# every element type a byte copy moves (bool is one byte, as TFLite stores it)
BYTE_DTYPES = (DType.INT8, DType.UINT8, DType.INT16, DType.INT32, DType.UINT32, DType.INT64, DType.FLOAT32,
               DType.BOOL)


def raw_copy(graph, node, what: str):
    """(input 0 type, output type) of an op that copies raw elements: one dtype in and out, one
    quantization (TFLite Micro copies bytes, so a different scale would silently change the values)."""
    data, out = types(graph, node)[0], out_type(graph, node)
    if data.dtype != out.dtype:
        fail(graph, node, f"{what} input is {data.dtype.value} but output is {out.dtype.value}")
    if data.dtype not in BYTE_DTYPES:
        fail(graph, node, f"{what} does not move {data.dtype.value} elements")
    if not data.dtype.is_float and data.quant != out.quant and None not in (data.quant, out.quant):
        fail(graph, node, f"{what} copies raw elements but input and output quantization differ "
                          f"({data.quant.scales[0]}, {data.quant.zero_points[0]}) vs "
                          f"({out.quant.scales[0]}, {out.quant.zero_points[0]})")
    return data, out


def view_params(graph, node, dims, steps, what: str) -> dict:
    """mr_transpose_params of the view that walks `dims` (outermost first) taking input elements `steps`
    apart, after merging. Views of more than six axes keep their outer axes as `loops` (dim, input step,
    output step) the kernel's C call runs around the kernel; steps the int32 fields cannot hold are refused."""
    data = types(graph, node)[0]
    dims, steps = collapse(dims, steps)
    dims, steps = dims or [1], steps or [0]
    if any(abs(s) * d > INT32_MAX for d, s in zip(dims, steps)):
        fail(graph, node, f"{what} steps {steps} overflow the kernel's int32 offsets")
    extra = max(0, len(dims) - VIEW_MAX_DIMS)
    out_steps = row_major_steps(dims)
    return {"elem_size": data.dtype.itemsize, "out_dims": left_pad(dims[extra:], VIEW_MAX_DIMS, 1),
            "in_step": left_pad(steps[extra:], VIEW_MAX_DIMS, 0),
            "loops": [(dims[k], steps[k], out_steps[k]) for k in range(extra)]}


def broadcast_steps(in_shape, out_shape) -> list[int]:
    """Input element step of each output axis when `in_shape` (right-aligned) broadcasts to `out_shape`."""
    padded = [1] * (len(out_shape) - len(in_shape)) + [int(d) for d in in_shape]
    steps = row_major_steps(padded)
    return [s if d == o else 0 for d, o, s in zip(padded, out_shape, steps)]


def positive_ints(graph, node, name: str, count: int | None = None) -> tuple[int, ...]:
    values = tuple(int(v) for v in node.attrs[name])
    if (count is not None and len(values) != count) or any(v < 1 for v in values):
        fail(graph, node, f"{name} {list(values)} must be {count or 'some'} positive integers")
    return values
