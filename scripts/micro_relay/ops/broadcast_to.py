"""broadcast_to: TFLite BROADCAST_TO (ONNX Expand): repeat the input along axes of size 1 (and new leading
axes) up to `shape`, numpy's broadcasting rule.

Arithmetic: none, a raw copy; quantization passes through. The kernel is the transpose kernel walking the
output with input step 0 along broadcast axes (ops/_movement.py view_params).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import TensorType
from ._common import fail, out_type, types
from ._movement import BYTE_DTYPES, broadcast_steps, positive_ints, raw_copy, view_params


def _shape(graph, node) -> tuple[int, ...]:
    data = types(graph, node)[0]
    shape = positive_ints(graph, node, "shape")
    padded = (1,) * (len(shape) - data.rank) + tuple(data.shape)
    if len(shape) < data.rank or any(d not in (1, o) for d, o in zip(padded, shape)):
        fail(graph, node, f"{list(data.shape)} does not broadcast to {list(shape)}")
    return shape


@register
class BroadcastTo(OpDef):
    name = "broadcast_to"
    attrs = {"shape": Attr(tuple)}
    dtypes = BYTE_DTYPES

    def infer(self, graph, node):
        data = types(graph, node)[0]
        return [TensorType(_shape(graph, node), data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, _ = raw_copy(graph, node, "broadcast_to")
        shape = _shape(graph, node)
        return view_params(graph, node, shape, broadcast_steps(data.shape, shape), "broadcast_to")

    def reference(self, graph, node, p, inputs):
        return [np.ascontiguousarray(np.broadcast_to(inputs[0], _shape(graph, node)))]
