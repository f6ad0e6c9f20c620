"""strided_slice: TFLite STRIDED_SLICE, a raw strided copy of a box of the input.

Arithmetic (TFLM_ARITHMETIC.md section 7, I/strided_slice_logic.h): none. The frontend has already resolved
TFLite's begin/end masks, negative indices, clamping and shrink axes, so attributes are per input axis:
begin in [0, dim] ([-1, dim-1] for a negative stride), end likewise, strides non-zero; the axis runs
begin, begin + stride, ... while before end. `newshape` is the output shape (shrunk axes dropped).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, types
from ._pooling import COPY_MAX_DIMS, collapse, left_pad, row_major_steps, same_dtype


def _counts(graph, node) -> list[int]:
    """Elements taken along each input axis."""
    data = types(graph, node)[0]
    begin, end, strides = (list(node.attrs[k]) for k in ("begin", "end", "strides"))
    if not len(begin) == len(end) == len(strides) == data.rank:
        fail(graph, node, f"begin/end/strides need {data.rank} values each, got {begin}, {end}, {strides}")
    counts = []
    for axis, (b, e, s, dim) in enumerate(zip(begin, end, strides, data.shape)):
        if s == 0:
            fail(graph, node, f"stride 0 on axis {axis}")
        lo, hi = (0, dim) if s > 0 else (-1, dim - 1)
        if not (lo <= b <= hi and lo <= e <= hi):
            fail(graph, node, f"axis {axis}: begin {b} / end {e} outside [{lo}, {hi}] (not normalized)")
        counts.append(max(0, -(-(e - b) // s)))  # ceil((e - b) / s)
    return counts


@register
class StridedSlice(OpDef):
    name = "strided_slice"
    dtypes = tuple(DType)  # raw bytes
    attrs = {"begin": Attr(tuple), "end": Attr(tuple), "strides": Attr(tuple), "newshape": Attr(tuple)}

    def infer(self, graph, node):
        data = types(graph, node)[0]
        counts = _counts(graph, node)
        shape = tuple(int(d) for d in node.attrs["newshape"])
        if [c for c in counts if c != 1] != [d for d in shape if d != 1]:
            fail(graph, node, f"slice takes {counts} elements per axis, which is not newshape {list(shape)}")
        return [TensorType(shape, data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, _ = same_dtype(graph, node, "strided_slice")
        counts = _counts(graph, node)
        in_steps = row_major_steps(data.shape)
        start = sum(b * st for b, st in zip(node.attrs["begin"], in_steps))
        # An axis that takes one element never moves along its stride: step 0 there, so that a huge stride
        # (which then takes one element) never becomes an int32 step the C field cannot hold.
        steps = [s * st if c > 1 else 0 for s, st, c in zip(node.attrs["strides"], in_steps, counts)]
        dims, steps = collapse(counts, steps)
        if len(dims) > COPY_MAX_DIMS:
            fail(graph, node, f"slice needs {len(dims)} dimensions after merging, at most {COPY_MAX_DIMS} run")
        return {"counts": counts, "start": start, "elem_size": data.dtype.itemsize,
                "dims": left_pad(dims, COPY_MAX_DIMS, 1), "steps": left_pad(steps, COPY_MAX_DIMS, 0)}

    def view_offset(self, graph, node):
        """A slice whose elements are one forward run of the input's (stride 1 where it takes more than one
        element, every inner axis whole): its bytes from `start` on."""
        p = self.prepare(graph, node)
        runs = [(d, s) for d, s in zip(p["dims"], p["steps"]) if d != 1]
        if len(runs) > 1 or (runs and runs[0][1] != 1):
            return None
        return p["start"] * p["elem_size"]

    def reference(self, graph, node, p, inputs):
        x = inputs[0]
        index = [np.arange(b, e, s) for b, e, s in zip(node.attrs["begin"], node.attrs["end"], node.attrs["strides"])]
        out = out_type(graph, node)
        return [x[np.ix_(*index)].reshape(out.shape)]
