"""nn.pad: TFLite PAD / PADV2 with constant padding, up to 5-D.

Arithmetic (TFLM_ARITHMETIC.md section 7, M/pad.cc): none; the input is copied raw into the middle of the
output. The border value, in the output's own type:
- int8: the output zero point, or PADV2's raw constant (the frontend checks that it shares the output's
  scale and zero point, as TFLite Micro's Prepare does);
- other integer types: PADV2's raw constant, else 0; float: the constant, else 0.0.
Attributes: pad_width = (before_0, after_0, before_1, after_1, ...); pad_value only when PADV2 gave one.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, types
from ._pooling import COPY_MAX_DIMS, left_pad, same_dtype


def _pairs(graph, node) -> list[tuple[int, int]]:
    data = types(graph, node)[0]
    flat = [int(v) for v in node.attrs["pad_width"]]
    if len(flat) != 2 * data.rank or any(v < 0 for v in flat):
        fail(graph, node, f"pad_width needs {2 * data.rank} non-negative values, got {flat}")
    return [(flat[2 * i], flat[2 * i + 1]) for i in range(data.rank)]


@register
class Pad(OpDef):
    name = "nn.pad"
    dtypes = tuple(d for d in DType if d is not DType.BOOL)  # raw bytes
    # pad_value's default is never read: absent means "TFLite's default" (the zero point for int8, else 0).
    attrs = {"pad_width": Attr(tuple), "pad_value": Attr(float, 0.0)}

    def infer(self, graph, node):
        data = types(graph, node)[0]
        shape = tuple(d + b + a for d, (b, a) in zip(data.shape, _pairs(graph, node)))
        return [TensorType(shape, data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, out = same_dtype(graph, node, "pad")
        if data.dtype == DType.BOOL:
            fail(graph, node, "pad does not take bool tensors")
        if data.rank > COPY_MAX_DIMS:
            fail(graph, node, f"pad supports at most {COPY_MAX_DIMS} dimensions, got {data.rank}")
        pairs = _pairs(graph, node)
        given = node.attrs.get("pad_value")
        if out.dtype.is_float:
            value = float(given) if given is not None else 0.0
        else:
            if given is None:
                value = out.quant.zero_point if out.dtype == DType.INT8 and out.quant is not None else 0
            elif float(given) != int(given):
                fail(graph, node, f"pad value {given} is not an integer for a {out.dtype.value} tensor")
            else:
                value = int(given)
            if not out.dtype.min <= value <= out.dtype.max:
                fail(graph, node, f"pad value {value} does not fit {out.dtype.value}")
        # Merge an axis into its outer neighbour when it has no padding: the neighbour's rows then pad and
        # copy as whole runs. Size-1 axes without padding disappear.
        dims, before, after = [], [], []
        for d, (b, a) in zip(data.shape, pairs):
            if d == 1 and b == 0 and a == 0:
                continue
            dims.append(d), before.append(b), after.append(a)
        k = len(dims) - 1
        while k > 0:
            if before[k] == 0 and after[k] == 0:
                inner = dims.pop(k)
                before.pop(k), after.pop(k)
                dims[k - 1] *= inner
                before[k - 1] *= inner
                after[k - 1] *= inner
            k -= 1
        return {"pairs": pairs, "value": value, "elem_size": data.dtype.itemsize,
                "in_dims": left_pad(dims, COPY_MAX_DIMS, 1), "before": left_pad(before, COPY_MAX_DIMS, 0),
                "after": left_pad(after, COPY_MAX_DIMS, 0)}

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        value = np.array(p["value"]).astype(out.dtype.numpy)
        return [np.pad(inputs[0], p["pairs"], mode="constant", constant_values=value).astype(out.dtype.numpy)]
