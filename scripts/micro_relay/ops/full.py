"""full: TFLite FILL (ONNX ConstantOfShape, Expand of a scalar): an output of `shape` holding the one value
of input 0, which may be a runtime tensor. With a constant value the pass pipeline folds the node
(passes/fold_constants.py), so the kernel only runs for runtime values.

Arithmetic: none; the value's bytes are repeated, so value and output share dtype and quantization.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import TensorType
from ._common import fail, out_type, types
from ._movement import BYTE_DTYPES, positive_ints, raw_copy


@register
class Full(OpDef):
    name = "full"
    attrs = {"shape": Attr(tuple)}
    dtypes = BYTE_DTYPES

    def infer(self, graph, node):
        value = types(graph, node)[0]
        if value.size != 1:
            fail(graph, node, f"full needs a one-element value, got {list(value.shape)}")
        return [TensorType(positive_ints(graph, node, "shape"), value.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        value, out = raw_copy(graph, node, "full")
        return {"elem_size": value.dtype.itemsize, "count": out.size}

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        return [np.full(out.shape, inputs[0].ravel()[0], dtype=out.dtype.numpy)]
