"""Shape and data-movement builtins: RESHAPE (SQUEEZE, EXPAND_DIMS), PAD, STRIDED_SLICE, CONCATENATION."""

from __future__ import annotations

import numpy as np
import tflite
from tflite.ActivationFunctionType import ActivationFunctionType as Act
from tflite.BuiltinOperator import BuiltinOperator as B

from .context import converts, make_node


@converts(B.RESHAPE, B.SQUEEZE, B.EXPAND_DIMS)
def reshape(ctx, op, inputs, outputs):
    return [make_node(ctx, "reshape", inputs[:1], outputs, newshape=tuple(ctx.shape(outputs[0])))]




@converts(B.PAD, B.PADV2)
def pad(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2, 3)
    paddings = ctx.constant(inputs[1], "PAD paddings").astype(np.int64)
    rank = len(ctx.shape(inputs[0]))
    if paddings.shape != (rank, 2) or (paddings < 0).any():
        ctx.fail(f"PAD paddings must be non-negative with shape [{rank}, 2], got {paddings.tolist()}")
    attrs = {"pad_width": tuple(int(v) for v in paddings.ravel())}
    if len(inputs) > 2 and inputs[2]:
        value = ctx.constant(inputs[2], "PADV2 constant value").ravel()
        if value.size != 1:
            ctx.fail(f"PADV2 constant value holds {value.size} values, not 1")
        if value.dtype == np.int8:  # TFLite Micro's PadPrepare: the raw constant must share the output's quantization
            cq, oq = ctx.tensors[inputs[2]].type.quant, ctx.tensors[outputs[0]].type.quant
            cq, oq = ((q.scale, q.zero_point) if q is not None else (0.0, 0) for q in (cq, oq))
            if (float(np.float32(cq[0])), cq[1]) != (float(np.float32(oq[0])), oq[1]):
                ctx.fail(f"PADV2 int8 constant is quantized {cq}, the output {oq}; they must be equal")
        attrs["pad_value"] = float(value[0]) if value.dtype.kind == "f" else int(value[0])
    return [make_node(ctx, "nn.pad", inputs[:1], outputs, **attrs)]


@converts(B.STRIDED_SLICE)
def strided_slice(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 4)
    o = ctx.options(op, tflite.StridedSliceOptions)
    shape = ctx.shape(inputs[0])
    if len(shape) > 5:
        ctx.fail("STRIDED_SLICE supports at most 5 dimensions")
    begin = [int(v) for v in ctx.constant(inputs[1], "STRIDED_SLICE begin").ravel()]
    end = [int(v) for v in ctx.constant(inputs[2], "STRIDED_SLICE end").ravel()]
    strides = [int(v) for v in ctx.constant(inputs[3], "STRIDED_SLICE strides").ravel()]
    if o is not None and (o.EllipsisMask() or o.NewAxisMask()):
        # TFLite Micro forces these masks to 0; follow it.
        pass
    begin_mask = o.BeginMask() if o is not None else 0
    end_mask = o.EndMask() if o is not None else 0
    shrink_mask = o.ShrinkAxisMask() if o is not None else 0
    starts, stops, steps = [], [], []
    for axis, dim in enumerate(shape):
        b = begin[axis] if axis < len(begin) else 0
        e = end[axis] if axis < len(end) else dim
        s = strides[axis] if axis < len(strides) else 1
        if s == 0:
            ctx.fail(f"STRIDED_SLICE stride 0 on axis {axis}")
        start = _slice_index(b, dim, s, bool(begin_mask >> axis & 1), True)
        if shrink_mask >> axis & 1:
            stop = start + 1
        else:
            stop = _slice_index(e, dim, s, bool(end_mask >> axis & 1), False)
        starts.append(start)
        stops.append(stop)
        steps.append(s)
    return [make_node(ctx, "strided_slice", inputs[:1], outputs, begin=tuple(starts), end=tuple(stops),
                  strides=tuple(steps), newshape=tuple(ctx.shape(outputs[0])))]


def _slice_index(index: int, dim: int, stride: int, masked: bool, is_begin: bool) -> int:
    """TFLite's StartForAxis/StopForAxis: masked -> the far end, negative wraps, then clamp."""
    if masked:
        if is_begin:
            return 0 if stride > 0 else dim - 1
        return dim if stride > 0 else -1
    if index < 0:
        index += dim
    if stride > 0:
        return min(max(index, 0), dim)
    return min(max(index, -1), dim - 1)




@converts(B.CONCATENATION)
def concatenation(ctx, op, inputs, outputs):
    o = ctx.options(op, tflite.ConcatenationOptions)
    rank = len(ctx.shape(outputs[0]))
    axis = ctx.axis(o.Axis() if o is not None else 0, rank, "CONCATENATION axis")
    if o is not None and o.FusedActivationFunction() != Act.NONE:
        ctx.fail("CONCATENATION with a fused activation is not supported")
    return [make_node(ctx, "concatenate", inputs, outputs, axis=axis)]
