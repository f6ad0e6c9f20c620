"""nn.space_to_depth: TFLite SPACE_TO_DEPTH on NHWC: each block_size x block_size patch becomes one pixel
whose channels are the patch's pixels in row-major order, each with all its channels.

out[n, y, x, (by * b + bx) * C + c] = in[n, y * b + by, x * b + bx, c]. Arithmetic: none, a raw copy
(TFLite Micro requires equal input and output types); the kernel is the transpose kernel over the 6-D view
(n, y, x, by, bx, c) of the input.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import TensorType
from ._common import fail, out_type, types
from ._movement import BYTE_DTYPES, raw_copy, view_params


def _geometry(graph, node):
    data = types(graph, node)[0]
    b = int(node.attrs["block_size"])
    if data.rank != 4 or b < 1 or data.shape[1] % b or data.shape[2] % b:
        fail(graph, node, f"space_to_depth needs NHWC data with height and width divisible by block_size {b}, "
                          f"got {list(data.shape)}")
    return (*data.shape, b)


@register
class SpaceToDepth(OpDef):
    name = "nn.space_to_depth"
    attrs = {"block_size": Attr(int), "layout": Attr(str, "NHWC", ("NHWC",))}
    dtypes = BYTE_DTYPES

    def infer(self, graph, node):
        n, h, w, c, b = _geometry(graph, node)
        data = types(graph, node)[0]
        return [TensorType((n, h // b, w // b, b * b * c), data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        raw_copy(graph, node, "space_to_depth")
        n, h, w, c, b = _geometry(graph, node)
        dims = [n, h // b, w // b, b, b, c]
        steps = [h * w * c, b * w * c, b * c, w * c, c, 1]
        return view_params(graph, node, dims, steps, "space_to_depth")

    def reference(self, graph, node, p, inputs):
        n, h, w, c, b = _geometry(graph, node)
        x = inputs[0].reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
        return [np.ascontiguousarray(x).reshape(n, h // b, w // b, b * b * c)]
