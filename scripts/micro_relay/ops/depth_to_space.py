"""nn.depth_to_space: TFLite DEPTH_TO_SPACE on NHWC (ONNX DepthToSpace): the inverse of space_to_depth.

mode "DCR" (TFLite's, ONNX's default): out[n, y * b + by, x * b + bx, c] = in[n, y, x, (by * b + bx) * C' + c];
mode "CRD" (ONNX): ... = in[n, y, x, c * b * b + by * b + bx]. Arithmetic: none, a raw copy; the kernel is
the transpose kernel over the 6-D view (n, y, by, x, bx, c) of the output.
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
    if data.rank != 4 or b < 1 or data.shape[3] % (b * b):
        fail(graph, node, f"depth_to_space needs NHWC data with channels divisible by block_size^2 = {b * b}, "
                          f"got {list(data.shape)}")
    return (*data.shape, b)


@register
class DepthToSpace(OpDef):
    name = "nn.depth_to_space"
    attrs = {"block_size": Attr(int), "mode": Attr(str, "DCR", ("DCR", "CRD")),
             "layout": Attr(str, "NHWC", ("NHWC",))}
    dtypes = BYTE_DTYPES

    def infer(self, graph, node):
        n, h, w, c, b = _geometry(graph, node)
        data = types(graph, node)[0]
        return [TensorType((n, h * b, w * b, c // (b * b)), data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        raw_copy(graph, node, "depth_to_space")
        n, h, w, c, b = _geometry(graph, node)
        oc = c // (b * b)
        dims = [n, h, b, w, b, oc]
        if node.attrs.get("mode", "DCR") == "DCR":
            steps = [h * w * c, w * c, b * oc, c, oc, 1]
        else:
            steps = [h * w * c, w * c, b, c, 1, b * b]
        return view_params(graph, node, dims, steps, "depth_to_space")

    def reference(self, graph, node, p, inputs):
        n, h, w, c, b = _geometry(graph, node)
        oc = c // (b * b)
        if node.attrs.get("mode", "DCR") == "DCR":
            x = inputs[0].reshape(n, h, w, b, b, oc).transpose(0, 1, 3, 2, 4, 5)
        else:
            x = inputs[0].reshape(n, h, w, oc, b, b).transpose(0, 1, 4, 2, 5, 3)
        return [np.ascontiguousarray(x).reshape(n, h * b, w * b, oc)]
