"""logical_not: TFLite LOGICAL_NOT, out = !x on a bool tensor."""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import DType
from ._binary import BOOLS, input_dtype
from ._common import fail, out_type
from ._elementwise import unary_infer


@register
class LogicalNot(OpDef):
    name = "logical_not"
    inplace = True
    dtypes = BOOLS

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        input_dtype(graph, node, BOOLS)
        if out_type(graph, node).dtype != DType.BOOL:
            fail(graph, node, f"logical_not gives bool, the output is {out_type(graph, node).dtype.value}")
        return {"kind": "bool", "size": out_type(graph, node).size}

    def reference(self, graph, node, p, inputs):
        return [np.logical_not(inputs[0])]
