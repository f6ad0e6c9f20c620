"""transpose: permute a tensor's axes (ONNX Transpose, Relax permute_dims).

Arithmetic: none; elements are moved raw, so quantization passes through. The ONNX and PyTorch frontends
turn NCHW models into NHWC ones at import (weights are transposed at compile time), so a transpose only runs
where the model itself asks for one or where the user keeps NCHW inputs and outputs.
The kernel walks the output in order. Axes of size 1 are dropped and runs of axes that stay adjacent in the
input are merged, so e.g. NCHW -> NHWC is a 3-D copy and a permutation that moves nothing is a memcpy.
Attributes: axes (the input axis each output axis takes, as numpy.transpose).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, types
from ._pooling import left_pad, row_major_steps, same_dtype

MAX_DIMS = 6  # MR_TRANSPOSE_MAX_DIMS


def _axes(graph, node) -> tuple[int, ...]:
    rank = types(graph, node)[0].rank
    axes = tuple(int(a) for a in node.attrs["axes"])
    if sorted(axes) != list(range(rank)):
        fail(graph, node, f"axes {list(axes)} is not a permutation of {rank} axes")
    return axes


def simplify(shape, axes) -> tuple[list[int], list[int]]:
    """(output dims, input element step per output axis) after dropping size-1 axes and merging runs."""
    steps = row_major_steps(shape)
    dims = [(int(shape[a]), steps[a]) for a in axes if shape[a] != 1]
    merged: list[list[int]] = []
    for dim, step in dims:
        if merged and merged[-1][1] == dim * step:  # the previous axis steps over exactly this whole axis
            merged[-1] = [merged[-1][0] * dim, step]
        else:
            merged.append([dim, step])
    return [d for d, _ in merged] or [1], [s for _, s in merged] or [1]


@register
class Transpose(OpDef):
    name = "transpose"
    dtypes = tuple(DType)  # raw bytes
    attrs = {"axes": Attr(tuple)}

    def infer(self, graph, node):
        data = types(graph, node)[0]
        shape = tuple(data.shape[a] for a in _axes(graph, node))
        return [TensorType(shape, data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, _ = same_dtype(graph, node, "transpose")
        dims, steps = simplify(data.shape, _axes(graph, node))
        if len(dims) > MAX_DIMS:
            fail(graph, node, f"transpose supports at most {MAX_DIMS} non-trivial axes, got {len(dims)}")
        return {"elem_size": data.dtype.itemsize, "out_dims": left_pad(dims, MAX_DIMS, 1),
                "in_step": left_pad(steps, MAX_DIMS, 0)}

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        return [np.ascontiguousarray(np.transpose(inputs[0], _axes(graph, node))).astype(out.dtype.numpy)]
