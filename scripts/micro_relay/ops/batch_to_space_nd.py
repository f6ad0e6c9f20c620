"""nn.batch_to_space_nd: TFLite BATCH_TO_SPACE_ND, the inverse of nn.space_to_batch_nd followed by a crop
(ops/_space_batch.py). Arithmetic: none, a raw copy."""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import TensorType
from ._common import out_type, types
from ._movement import BYTE_DTYPES
from ._space_batch import geometry, image_shape, params


@register
class BatchToSpaceND(OpDef):
    name = "nn.batch_to_space_nd"
    attrs = {"block_shape": Attr(tuple), "crops": Attr(tuple)}
    dtypes = BYTE_DTYPES

    def infer(self, graph, node):
        data = types(graph, node)[0]
        return [TensorType(image_shape(geometry(graph, node, False)), data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        return params(graph, node, geometry(graph, node, False), False)

    def reference(self, graph, node, p, inputs):
        g = geometry(graph, node, False)
        (bh, bw), (gh, gw) = g.block, (p["grid_h"], p["grid_w"])
        x = inputs[0].reshape(bh, bw, g.batches, gh, gw, g.channels).transpose(2, 3, 0, 4, 1, 5)
        full = np.ascontiguousarray(x).reshape(g.batches, gh * bh, gw * bw, g.channels)
        image = full[:, g.before[0]:g.before[0] + g.image_h, g.before[1]:g.before[1] + g.image_w]
        return [np.ascontiguousarray(image).reshape(out_type(graph, node).shape)]
