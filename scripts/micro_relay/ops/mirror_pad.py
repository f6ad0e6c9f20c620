"""nn.mirror_pad: TFLite MIRROR_PAD (ONNX Pad mode "reflect"): each axis padded with its mirror image.

REFLECT leaves the edge element out of the mirror ([1 2 3] by 2 -> 3 2 1 2 3 2 1), SYMMETRIC repeats it
(2 1 1 2 3 3 2). Arithmetic: none, a raw copy. TensorFlow requires pads of at most dim - 1 (REFLECT) or dim
(SYMMETRIC); larger ones are refused (TFLite Micro would read a second reflection).
Attributes: pad_width (before, after per axis, flattened as nn.pad's), mode.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import TensorType
from ._common import fail, out_type, types
from ._movement import BYTE_DTYPES, raw_copy
from ._pooling import left_pad

MAX_DIMS = 5  # MR_MIRROR_PAD_MAX_DIMS


def _pads(graph, node) -> list[tuple[int, int]]:
    data = types(graph, node)[0]
    flat = [int(v) for v in node.attrs["pad_width"]]
    symmetric = node.attrs.get("mode", "REFLECT") == "SYMMETRIC"
    if len(flat) != 2 * data.rank or data.rank > MAX_DIMS:
        fail(graph, node, f"mirror_pad needs (before, after) for each of at most {MAX_DIMS} axes, got {flat}")
    pads = list(zip(flat[0::2], flat[1::2]))
    for axis, ((lo, hi), dim) in enumerate(zip(pads, data.shape)):
        limit = dim if symmetric else dim - 1
        if min(lo, hi) < 0 or max(lo, hi) > limit:
            fail(graph, node, f"axis {axis} of size {dim} pads ({lo}, {hi}); "
                              f"{node.attrs.get('mode', 'REFLECT')} allows 0..{limit}")
    return pads


@register
class MirrorPad(OpDef):
    name = "nn.mirror_pad"
    attrs = {"pad_width": Attr(tuple), "mode": Attr(str, "REFLECT", ("REFLECT", "SYMMETRIC"))}
    dtypes = BYTE_DTYPES

    def infer(self, graph, node):
        data = types(graph, node)[0]
        shape = tuple(d + lo + hi for d, (lo, hi) in zip(data.shape, _pads(graph, node)))
        return [TensorType(shape, data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, out = raw_copy(graph, node, "mirror_pad")
        pads = _pads(graph, node)
        return {"elem_size": data.dtype.itemsize, "symmetric": int(node.attrs.get("mode", "REFLECT") == "SYMMETRIC"),
                "in_dims": left_pad(data.shape, MAX_DIMS, 1), "before": left_pad([lo for lo, _ in pads], MAX_DIMS, 0),
                "out_dims": left_pad(out.shape, MAX_DIMS, 1)}

    def reference(self, graph, node, p, inputs):
        mode = "symmetric" if p["symmetric"] else "reflect"
        return [np.pad(inputs[0], _pads(graph, node), mode=mode)]
