"""gather_nd: TFLite GATHER_ND (ONNX GatherND with batch_dims 0): positions [..., depth] pick slices of the
input's first `depth` axes; out[j..., r...] = in[indices[j..., 0], ..., indices[j..., depth-1], r...].

Arithmetic: none, a raw copy. A runtime position outside its axis returns MR_ERR_INDEX (TFLite Micro fails
the invoke; it checks only that the flat offset stays inside the tensor, this kernel checks each axis).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import TensorType
from ._common import fail, out_type, types
from ._movement import BYTE_DTYPES, raw_copy
from ._pooling import row_major_steps
from .take import INDEX_DTYPES, check_positions

MAX_DEPTH = 6  # MR_GATHER_ND_MAX_DEPTH


def _geometry(graph, node):
    data, idx = types(graph, node, 2)[:2]
    depth = idx.shape[-1] if idx.rank else 0
    if idx.dtype not in INDEX_DTYPES or idx.rank < 1 or not 1 <= depth <= min(data.rank, MAX_DEPTH):
        fail(graph, node, f"gather_nd needs int32 or int64 positions [..., depth] with depth 1..{min(data.rank, MAX_DEPTH)}, "
                          f"got {idx.dtype.value}{list(idx.shape)} for {list(data.shape)}")
    return data, idx, depth


@register
class GatherND(OpDef):
    name = "gather_nd"
    num_inputs = (2, 2)
    dtypes = BYTE_DTYPES

    def infer(self, graph, node):
        data, idx, depth = _geometry(graph, node)
        return [TensorType(idx.shape[:-1] + data.shape[depth:], data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        raw_copy(graph, node, "gather_nd")
        data, idx, depth = _geometry(graph, node)
        tensor = graph.tensors[node.inputs[1]]
        if tensor.is_constant:
            check_positions(graph, node, tensor.data, data.shape[:depth], False, "gather_nd")
        steps = row_major_steps(data.shape[:depth])
        pad = [0] * (MAX_DEPTH - depth)
        return {"count": int(np.prod(idx.shape[:-1], dtype=np.int64)), "depth": depth,
                "slice_bytes": int(np.prod(data.shape[depth:], dtype=np.int64)) * data.dtype.itemsize,
                "index_bytes": idx.dtype.itemsize, "dims": list(data.shape[:depth]) + pad, "steps": steps + pad}

    def reference(self, graph, node, p, inputs):
        data, idx, depth = _geometry(graph, node)
        positions = inputs[1].astype(np.int64)
        check_positions(graph, node, positions, data.shape[:depth], False, "gather_nd")
        flat = positions.reshape(-1, depth)
        picked = inputs[0][tuple(flat.T)]
        return [np.ascontiguousarray(picked).reshape(out_type(graph, node).shape)]
