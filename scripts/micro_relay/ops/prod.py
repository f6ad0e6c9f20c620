"""prod: TFLite REDUCE_PROD over a set of axes, float32 only.

Arithmetic (R/reduce.h ReduceGeneric): acc = 1.f, then acc = x * acc over the reduced box in row-major
order. TFLite Micro has no REDUCE_PROD kernel at all, so there is no integer one to be bit-exact with: int8
(TFLite's QuantizedReduceProd, which rescales after every step) is refused.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import DType
from ._common import out_type, types
from ._reduce import REDUCE_ATTRS, fold, reduce_infer, rows, same_type_prepare


@register
class Prod(OpDef):
    name = "prod"
    attrs = REDUCE_ATTRS
    dtypes = (DType.FLOAT32,)

    def infer(self, graph, node):
        return reduce_infer(graph, node)

    def prepare(self, graph, node):
        return same_type_prepare(graph, node, self.dtypes)[0]

    def reference(self, graph, node, p, inputs):
        x, out = inputs[0], out_type(graph, node)
        return [fold(rows(x, p), np.float32(1), lambda acc, v: v * acc).reshape(out.shape)]

    def macs(self, graph, node):
        return types(graph, node)[0].size
