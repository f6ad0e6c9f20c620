"""Helpers shared by the element-wise binary math ops: maximum, minimum, divide, power, squared_difference,
floor_divide, floor_mod, the comparisons, the logical ops, where and nn.prelu.

They broadcast as add does (ops/_elementwise.py broadcast_shape and broadcast_layout, numpy rules up to 6-D,
the C walk of micro_relay/elementwise.h). What differs from add is the set of element types and the output's
type: comparisons give DType.BOOL (a uint8_t 0 or 1 in C), and several ops run on int32 or bool as well as on
int8 and float32. `BroadcastOp` holds that shared frame; a subclass says which dtypes it takes (`dtypes`),
what the output is (`out_dtype`), its quantized constants (`quant_params`) and its formula (`compute`).
"""

from __future__ import annotations

import numpy as np

from ..arith.fixedpoint import mbqm32, wrap32
from ..arith.multiplier import quantize_multiplier
from ..ir.registry import OpDef, op_where
from ..ir.types import DType, TensorType
from ._common import fail, out_type, require_quant, types
from ._elementwise import MAX_BROADCAST_RANK, broadcast_layout, broadcast_shape

SUFFIX = {DType.INT8: "s8", DType.INT16: "s16", DType.INT32: "s32", DType.FLOAT32: "f32", DType.BOOL: "bool"}
BOOLS = (DType.BOOL,)


def input_dtype(graph, node, allowed: tuple) -> DType:
    """The one dtype all inputs share, which must be one of `allowed`; int8/int16 ones need quantization."""
    found = {t.dtype for t in types(graph, node) if t is not None}
    if len(found) != 1:
        fail(graph, node, f"{node.op} needs inputs of one dtype, got {sorted(d.value for d in found)}")
    dtype = found.pop()
    if dtype not in allowed:
        fail(graph, node, f"{node.op} supports {[d.value for d in allowed]}, got {dtype.value}")
    for index, t in enumerate(types(graph, node)):
        require_quant(graph, node, t, f"input {index}")
    return dtype


def positive_scales(graph, node, *quants) -> None:
    for q in quants:
        if not q.scale > 0:
            fail(graph, node, f"{node.op} needs positive scales, got {q.scale}")


class BroadcastOp(OpDef):
    """Two inputs broadcast against each other, one output of `out_dtype(input dtype)`. Input 0 may share the
    output's bytes: the kernels read a[ia] and b[ib] before they write out[io] (the planner only joins them when
    bytes and element counts match)."""

    num_inputs = (2, 2)
    inplace = True
    dtypes: tuple = ()

    def out_dtype(self, dtype: DType) -> DType:
        return dtype

    def infer(self, graph, node):
        a, b = types(graph, node)
        shape = broadcast_shape(graph, node, a.shape, b.shape)
        return [TensorType(shape, self.out_dtype(a.dtype), out_type(graph, node).quant)]

    def quant_params(self, graph, node, dtype: DType) -> dict:
        return {}

    def input_dtype(self, graph, node) -> DType:
        """The element type the kernel runs on (the inputs' one shared dtype, unless a subclass says more)."""
        return input_dtype(graph, node, self.dtypes)

    def prepare(self, graph, node):
        dtype = self.input_dtype(graph, node)
        a, b = types(graph, node)
        out = out_type(graph, node)
        if out.dtype != self.out_dtype(dtype):
            fail(graph, node, f"{node.op} of {dtype.value} gives {self.out_dtype(dtype).value}, the output is "
                              f"{out.dtype.value}")
        params = {"kind": SUFFIX[dtype], "size": out.size, "layout": broadcast_layout(a.shape, b.shape, out.shape)}
        params.update(self.quant_params(graph, node, dtype))
        return params

    def compute(self, p: dict, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def reference(self, graph, node, p, inputs):
        out = out_type(graph, node)
        a, b = np.broadcast_arrays(*inputs)
        with np.errstate(all="ignore"):
            result = self.compute(p, a, b)
        return [np.asarray(result).astype(out.dtype.numpy).reshape(out.shape)]

    def macs(self, graph, node):
        return out_type(graph, node).size


def rescale_params(graph, node, left_shift: int) -> dict:
    """COMPARISONS int8 prepare: each input's own scale as a SmallerThanOneExp multiplier (TFLite Micro CHECKs
    scale < 1), applied to (q - zp) << left_shift."""
    a, b = types(graph, node)
    positive_scales(graph, node, a.quant, b.quant)
    params = {"left_shift": left_shift, "a_offset": -a.quant.zero_point, "b_offset": -b.quant.zero_point}
    for key, t in (("a", a), ("b", b)):
        if not t.quant.scale < 1:
            fail(graph, node, f"{node.op} of int8 needs input scales below 1 (TFLite Micro's rescale), got "
                              f"{t.quant.scale}")
        params[f"{key}_mult"], params[f"{key}_shift"] = quantize_multiplier(t.quant.scale, op_where(graph, node))
    return params


def rescaled(p: dict, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both inputs to a common fixed-point scale: MBQM32((q - zp) << left_shift, M, s), s <= 0."""
    ls = p["left_shift"]
    sa = mbqm32(wrap32((a.astype(np.int64) + p["a_offset"]) << ls), p["a_mult"], p["a_shift"])
    sb = mbqm32(wrap32((b.astype(np.int64) + p["b_offset"]) << ls), p["b_mult"], p["b_shift"])
    return sa, sb


def broadcast_layout_n(shapes: list[tuple], out: tuple) -> dict:
    """broadcast_layout for any number of inputs (where takes three): the output's dims with size-1 axes
    dropped and neighbours that broadcast alike merged, and each input's element strides (0 where repeated)."""
    rank = len(out)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    axes: list[list] = []  # [dim, present per input]
    for axis, dim in enumerate(out):
        if dim == 1:
            continue
        kind = tuple(s[axis] == dim for s in padded)
        if axes and axes[-1][1] == kind:
            axes[-1][0] *= dim
        else:
            axes.append([dim, kind])
    if not axes:
        axes = [[1, tuple(True for _ in shapes)]]
    strides = []
    for index in range(len(shapes)):
        result, step = [], 1
        for dim, kind in reversed(axes):
            result.append(step if kind[index] else 0)
            step *= dim if kind[index] else 1
        strides.append(result[::-1])
    if len(axes) > MAX_BROADCAST_RANK:
        raise AssertionError("a broadcast of at most 6 dimensions collapses to at most 6")
    return {"rank": len(axes), "dims": [d for d, _ in axes], "strides": strides}
