"""zeros_like: TFLite ZEROS_LIKE: zeros of the input's shape and type (the input's values are not read).
A constant input is folded by the pass pipeline; otherwise the kernel clears the output (all bytes 0)."""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import TensorType
from ._common import out_type, types
from ._movement import BYTE_DTYPES, raw_copy


@register
class ZerosLike(OpDef):
    name = "zeros_like"
    dtypes = BYTE_DTYPES

    def infer(self, graph, node):
        data = types(graph, node)[0]
        return [TensorType(data.shape, data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, out = raw_copy(graph, node, "zeros_like")
        return {"elem_size": data.dtype.itemsize, "count": out.size}

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        return [np.zeros(out.shape, dtype=out.dtype.numpy)]
