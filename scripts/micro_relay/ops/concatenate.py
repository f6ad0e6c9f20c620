"""concatenate: TFLite CONCATENATION along one axis, any number of inputs.

Arithmetic (TFLM_ARITHMETIC.md section 7, M/concatenation.cc): none, a raw copy. So TFLite Micro's Prepare
requires int8 inputs to carry exactly the output's scale and zero point, and int16 tensors zero point 0;
we reject the same models instead of silently mixing scales. No fused activation.
"""

from __future__ import annotations

import numpy as np

from ..arith.multiplier import f32
from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, require_quant, types


def _axis(graph, node) -> int:
    rank = types(graph, node)[0].rank
    axis = int(node.attrs["axis"])
    if not -rank <= axis < rank:
        fail(graph, node, f"axis {axis} is outside a rank-{rank} tensor")
    return axis % rank


@register
class Concatenate(OpDef):
    name = "concatenate"
    dtypes = tuple(DType)  # raw bytes
    attrs = {"axis": Attr(int)}
    num_inputs = (1, 1 << 16)

    def infer(self, graph, node):
        ins = types(graph, node)
        if any(t is None for t in ins):
            fail(graph, node, "concatenate inputs cannot be absent")
        axis = _axis(graph, node)
        first = ins[0]
        for i, t in enumerate(ins[1:], 1):
            same = t.rank == first.rank and all(a == b for k, (a, b) in enumerate(zip(t.shape, first.shape)) if k != axis)
            if not same or t.dtype != first.dtype:
                fail(graph, node, f"input {i} {t.dtype.value}{list(t.shape)} does not join "
                                  f"{first.dtype.value}{list(first.shape)} along axis {axis}")
        shape = list(first.shape)
        shape[axis] = sum(t.shape[axis] for t in ins)
        return [TensorType(tuple(shape), first.dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        ins, out = types(graph, node), out_type(graph, node)
        axis = _axis(graph, node)
        if ins[0].dtype != out.dtype:
            fail(graph, node, f"concatenate input is {ins[0].dtype.value} but output is {out.dtype.value}")
        if out.dtype == DType.INT8:
            require_quant(graph, node, out, "output")
            for i, t in enumerate(ins):
                require_quant(graph, node, t, f"input {i}")
                if f32(t.quant.scale) != f32(out.quant.scale) or t.quant.zero_point != out.quant.zero_point:
                    fail(graph, node, f"int8 input {i} is quantized ({t.quant.scale}, {t.quant.zero_point}) but the "
                                      f"output ({out.quant.scale}, {out.quant.zero_point}); TFLite Micro concatenates "
                                      f"raw bytes and requires them equal")
        if out.dtype == DType.INT16:
            for i, t in enumerate([*ins, out]):
                if t.quant is not None and t.quant.zero_point != 0:
                    fail(graph, node, f"int16 concatenate needs zero point 0, tensor {i} has {t.quant.zero_point}")
        outer = int(np.prod(out.shape[:axis], dtype=np.int64))
        inner = int(np.prod(out.shape[axis + 1:], dtype=np.int64))
        return {"axis": axis, "outer": outer,
                "row_bytes": [t.shape[axis] * inner * t.dtype.itemsize for t in ins]}

    def input_offsets(self, graph, node):
        """Along the outermost axis that is not 1 (nothing outside it), each input is one run of the output's
        bytes, the inputs one after the other."""
        p = self.prepare(graph, node)
        if p["outer"] != 1:
            return None
        offsets, at = [], 0
        for row in p["row_bytes"]:
            offsets.append(at)
            at += row
        return tuple(offsets)

    def reference(self, graph, node, p, inputs):
        return [np.concatenate(inputs, axis=p["axis"]).astype(out_type(graph, node).dtype.numpy)]
