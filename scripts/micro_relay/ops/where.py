"""where: TFLite SELECT / SELECT_V2, out = condition ? x : y, the three broadcast against each other (numpy
rules up to 6-D; TFLite Micro's SELECT_V2 broadcasts up to 5-D).

The chosen element is copied raw (M/select.cc ignores quantization, as Micro Relay does): x and y share one
dtype, int8, int16, int32 or float32; the condition is bool.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import DType, TensorType
from ._binary import SUFFIX, broadcast_layout_n
from ._common import fail, out_type, types
from ._elementwise import broadcast_shape

VALUES = (DType.INT8, DType.INT16, DType.INT32, DType.FLOAT32)


@register
class Where(OpDef):
    name = "where"
    num_inputs = (3, 3)
    dtypes = (DType.BOOL, *VALUES)

    def infer(self, graph, node):
        c, x, y = types(graph, node)
        shape = broadcast_shape(graph, node, broadcast_shape(graph, node, c.shape, x.shape), y.shape)
        return [TensorType(shape, x.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        c, x, y = types(graph, node)
        out = out_type(graph, node)
        if c.dtype != DType.BOOL:
            fail(graph, node, f"where needs a bool condition, got {c.dtype.value}")
        if not x.dtype == y.dtype == out.dtype or x.dtype not in VALUES:
            fail(graph, node, f"where needs x, y and the output of one dtype out of {[d.value for d in VALUES]}, "
                              f"got {x.dtype.value}, {y.dtype.value} -> {out.dtype.value}")
        return {"kind": SUFFIX[x.dtype], "size": out.size,
                "layout": broadcast_layout_n([c.shape, x.shape, y.shape], out.shape)}

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        c, x, y = np.broadcast_arrays(*inputs)
        return [np.where(c, x, y).astype(out.dtype.numpy).reshape(out.shape)]
