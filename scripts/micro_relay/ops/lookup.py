"""lookup: out[i] = table[x[i] + 128] for int8 x and a constant int8 table of 256 entries.

The QDQ lowering writes it for an element-wise op of one int8 tensor and a constant scalar (erf(x) + 1 and
x * 0.5 of an exported GELU, x / 6 of a hard swish): the ONNX graph means dequantize -> the float32 op ->
quantize, which depends on one input byte, so the compiler evaluates that float32 arithmetic (as onnxruntime
runs it: every operation an IEEE float32 one) on all 256 bytes and the kernel looks the result up. No
integer rescale can do that exactly: such ops often put values within float32 rounding of a rounding tie
(x * (s_x / s_out) + 127.5 with s_x and s_out one ulp apart), where only the float32 arithmetic itself
decides the side.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, types


@register
class Lookup(OpDef):
    name = "lookup"
    num_inputs = (2, 2)
    inplace = True
    dtypes = (DType.INT8,)

    def infer(self, graph, node):
        x, table = types(graph, node)
        if x.dtype != DType.INT8 or table.dtype != DType.INT8 or table.shape != (256,):
            fail(graph, node, f"lookup needs int8 input and an int8 [256] table, got {x.dtype.value} and "
                              f"{table.dtype.value} {list(table.shape)}")
        return [TensorType(x.shape, DType.INT8, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        table = graph.tensors[node.inputs[1]]
        if not table.is_constant:
            fail(graph, node, "lookup's table must be a constant")
        return {"size": out_type(graph, node).size, "valid_min": -128}

    def reference(self, graph, node, p, inputs):
        x, table = inputs
        return [np.asarray(table, dtype=np.int8)[x.astype(np.int64) + 128]]
