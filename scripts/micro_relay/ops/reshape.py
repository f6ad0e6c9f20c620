"""reshape: TFLite RESHAPE / SQUEEZE / EXPAND_DIMS. The output is the input's bytes under a new shape.

Arithmetic: none (TFLM_ARITHMETIC.md section 7: a memcpy in TFLite Micro). Here it is an alias: the planner
gives output and input one buffer, so no code runs. Only a reshape of a constant (left when constant folding
did not run) needs a copy into the arena, emitted inline.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, types


@register
class Reshape(OpDef):
    name = "reshape"
    dtypes = tuple(DType)  # raw bytes
    attrs = {"newshape": Attr(tuple)}
    alias = True

    def infer(self, graph, node):
        data = types(graph, node)[0]
        shape = [int(d) for d in node.attrs["newshape"]]
        if shape.count(-1) == 1:  # one unknown dimension takes what is left, as numpy and TFLite do
            known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
            if known <= 0 or data.size % known:
                fail(graph, node, f"newshape {shape} cannot hold {list(data.shape)}")
            shape[shape.index(-1)] = data.size // known
        if any(d < 1 for d in shape) or int(np.prod(shape, dtype=np.int64)) != data.size:
            fail(graph, node, f"newshape {shape} does not hold the {data.size} elements of {list(data.shape)}")
        return [TensorType(tuple(shape), data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, out = types(graph, node)[0], out_type(graph, node)
        if data.dtype != out.dtype:
            fail(graph, node, f"reshape input is {data.dtype.value} but output is {out.dtype.value}")
        return {}

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        return [inputs[0].reshape(out.shape).astype(out.dtype.numpy, copy=True)]
