"""take: TFLite GATHER (ONNX Gather, embeddings): slices of the input along `axis` at int32 or int64
positions, which may be constants or runtime values.

out[b..., o..., i..., r...] = in[b..., o..., indices[b..., i...], r...] over the first `batch_dims` axes b
shared by input and positions. Arithmetic: none, a raw copy; quantization passes through. TFLite Micro
fails the invoke on a position outside the axis (negative ones too); the kernel returns MR_ERR_INDEX the
same way, and constant positions are checked here. `wrap_negative` (ONNX) counts [-size, -1] from the end.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, types
from ._movement import BYTE_DTYPES, raw_copy

INDEX_DTYPES = (DType.INT32, DType.INT64)


def check_positions(graph, node, positions: np.ndarray, sizes, wrap: bool, what: str):
    """Constant positions (last axis: one per size in `sizes`) inside their axes."""
    low = -np.asarray(sizes) if wrap else 0
    if positions.size and ((positions < low) | (positions >= np.asarray(sizes))).any():
        fail(graph, node, f"{what} positions {positions.ravel()[:8].tolist()} fall outside axes of sizes {list(sizes)}")


def _geometry(graph, node):
    data, idx = types(graph, node, 2)[:2]
    if data.rank == 0 or idx.dtype not in INDEX_DTYPES:
        fail(graph, node, f"take needs a tensor and int32 or int64 positions, got {data.dtype.value}{list(data.shape)} "
                          f"and {idx.dtype.value}")
    axis, batch = int(node.attrs.get("axis", 0)), int(node.attrs.get("batch_dims", 0))
    if not -data.rank <= axis < data.rank:
        fail(graph, node, f"axis {axis} is outside a rank-{data.rank} tensor")
    axis %= data.rank
    if not 0 <= batch <= min(axis, idx.rank) or data.shape[:batch] != idx.shape[:batch]:
        fail(graph, node, f"batch_dims {batch} needs the first axes of {list(data.shape)} and {list(idx.shape)} "
                          f"equal and at most axis {axis}")
    return data, idx, axis, batch


@register
class Take(OpDef):
    name = "take"
    attrs = {"axis": Attr(int, 0), "batch_dims": Attr(int, 0), "wrap_negative": Attr(bool, False)}
    num_inputs = (2, 2)
    dtypes = BYTE_DTYPES

    def infer(self, graph, node):
        data, idx, axis, batch = _geometry(graph, node)
        shape = data.shape[:axis] + idx.shape[batch:] + data.shape[axis + 1:]
        return [TensorType(tuple(shape), data.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        raw_copy(graph, node, "take")
        data, idx, axis, batch = _geometry(graph, node)
        wrap = bool(node.attrs.get("wrap_negative", False))
        tensor = graph.tensors[node.inputs[1]]
        if tensor.is_constant:
            check_positions(graph, node, tensor.data, [data.shape[axis]], wrap, "take")
        prod = lambda dims: int(np.prod(dims, dtype=np.int64))  # noqa: E731
        return {"batches": prod(data.shape[:batch]), "outer": prod(data.shape[batch:axis]),
                "axis_size": data.shape[axis], "count": prod(idx.shape[batch:]),
                "inner_bytes": prod(data.shape[axis + 1:]) * data.dtype.itemsize,
                "index_bytes": idx.dtype.itemsize, "wrap_negative": int(wrap)}

    def reference(self, graph, node, p, inputs):
        data, idx, axis, batch = _geometry(graph, node)
        x, positions = inputs[0], inputs[1].astype(np.int64)
        check_positions(graph, node, positions, [data.shape[axis]], bool(p["wrap_negative"]), "take")
        flat_x = x.reshape((p["batches"],) + x.shape[batch:])
        flat_i = positions.reshape((p["batches"],) + positions.shape[batch:])
        parts = [np.take(xb, ib, axis=axis - batch) for xb, ib in zip(flat_x, flat_i)]
        return [np.ascontiguousarray(np.stack(parts)).reshape(out_type(graph, node).shape)]
