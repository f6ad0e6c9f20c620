"""tile: TFLite TILE (ONNX Tile): the input repeated `reps[k]` times along each axis k, numpy.tile with one
repeat per axis.

Arithmetic: none, a raw copy; quantization passes through. The kernel is the transpose kernel: each axis of
size d repeated r times is walked as two axes, r steps of 0 and d steps of the input's stride
(ops/_movement.py view_params merges what it can).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import TensorType
from ._common import out_type, types
from ._movement import BYTE_DTYPES, positive_ints, raw_copy, view_params
from ._pooling import row_major_steps


@register
class Tile(OpDef):
    name = "tile"
    attrs = {"reps": Attr(tuple)}
    dtypes = BYTE_DTYPES

    def infer(self, graph, node):
        data = types(graph, node)[0]
        reps = positive_ints(graph, node, "reps", data.rank)
        shape = tuple(d * r for d, r in zip(data.shape, reps))
        return [TensorType(shape, data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, _ = raw_copy(graph, node, "tile")
        reps = positive_ints(graph, node, "reps", data.rank)
        dims, steps = [], []
        for d, r, s in zip(data.shape, reps, row_major_steps(data.shape)):
            dims += [r, d]
            steps += [0, s]
        return view_params(graph, node, dims, steps, "tile")

    def reference(self, graph, node, p, inputs):
        return [np.ascontiguousarray(np.tile(inputs[0], tuple(node.attrs["reps"])))]
