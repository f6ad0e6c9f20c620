"""nn.space_to_batch_nd: TFLite SPACE_TO_BATCH_ND (see ops/_space_batch.py for the layout). Arithmetic:
none, a raw copy with real-zero padding. A SPACE_TO_BATCH_ND -> convolution -> BATCH_TO_SPACE_ND chain is
one dilated convolution (passes/fold_dilated_conv.py); the kernel runs the ones left."""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import TensorType
from ._common import out_type, types
from ._movement import BYTE_DTYPES
from ._space_batch import batch_side_shape, geometry, params, phases, zero_value


@register
class SpaceToBatchND(OpDef):
    name = "nn.space_to_batch_nd"
    attrs = {"block_shape": Attr(tuple), "paddings": Attr(tuple)}
    dtypes = BYTE_DTYPES

    def infer(self, graph, node):
        data = types(graph, node)[0]
        return [TensorType(batch_side_shape(geometry(graph, node, True)), data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        return params(graph, node, geometry(graph, node, True), True)

    def reference(self, graph, node, p, inputs):
        g = geometry(graph, node, True)
        image = inputs[0].reshape(g.batches, g.image_h, g.image_w, g.channels)
        pads = ((0, 0), (g.before[0], g.after[0]), (g.before[1], g.after[1]), (0, 0))
        padded = np.pad(image, pads, constant_values=zero_value(graph, node, image.dtype))
        return [phases(g, padded).reshape(out_type(graph, node).shape)]
