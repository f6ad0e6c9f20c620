"""Data-movement builtins that become existing IR ops, with no copy beyond TFLite Micro's own: TRANSPOSE,
SLICE, SPLIT, SPLIT_V and UNPACK (one strided_slice per output), PACK (reshapes, which alias, and one
concatenate). The ones with IR ops of their own are in movement_ops.py.

These copy raw elements, so input and output must agree in type and quantization (checked here, where the
error can name the operator)."""

from __future__ import annotations

import numpy as np
import tflite
from tflite.BuiltinOperator import BuiltinOperator as B

from ....ir.graph import Tensor, fresh_name
from .context import converts, make_node

def same_quant(ctx, sources, results, what: str):
    """Raw copies keep bytes: every source and result must carry one dtype and one quantization."""
    def kind(t):
        q = "" if t.quant is None else f" ({float(np.float32(t.quant.scale))}, {t.quant.zero_point})"
        return f"{t.dtype.value}{q}"

    kinds = sorted({kind(ctx.tensors[n].type) for n in [*sources, *results] if n})
    if len(kinds) > 1:
        ctx.fail(f"{what} copies raw elements but its tensors differ in type or quantization: {', '.join(kinds)}")


def ints(ctx, name: str, what: str) -> list[int]:
    return [int(v) for v in ctx.constant(name, what).ravel()]


def scalar_axis(ctx, name: str, rank: int, what: str) -> int:
    values = ints(ctx, name, what)
    if len(values) != 1:
        ctx.fail(f"{what} must hold one value, got {values}")
    return ctx.axis(values[0], rank, what)


def slice_node(ctx, source, output, begin, counts):
    """strided_slice with unit strides taking `counts` elements from `begin` on each axis."""
    return make_node(ctx, "strided_slice", [source], [output], begin=tuple(begin),
                     end=tuple(b + c for b, c in zip(begin, counts)), strides=(1,) * len(begin),
                     newshape=tuple(ctx.shape(output)))


def split_along(ctx, source, outputs, axis, sizes):
    shape = list(ctx.shape(source))
    if sum(sizes) != shape[axis] or any(s < 0 for s in sizes) or len(sizes) != len(outputs):
        ctx.fail(f"split sizes {sizes} do not cover axis {axis} of {shape} with {len(outputs)} outputs")
    nodes, start = [], 0
    for output, size in zip(outputs, sizes):
        begin = [0] * len(shape)
        begin[axis] = start
        counts = list(shape)
        counts[axis] = size
        if list(ctx.shape(output)) != counts:
            ctx.fail(f"split output '{output}' has shape {list(ctx.shape(output))}, expected {counts}")
        nodes.append(slice_node(ctx, source, output, begin, counts))
        start += size
    return nodes


@converts(B.TRANSPOSE)
def transpose(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    rank = len(ctx.shape(inputs[0]))
    perm = [ctx.axis(a, rank, "TRANSPOSE permutation entry") for a in ints(ctx, inputs[1], "TRANSPOSE perm")]
    if sorted(perm) != list(range(rank)):
        ctx.fail(f"TRANSPOSE perm {perm} is not a permutation of {rank} axes")
    same_quant(ctx, inputs[:1], outputs, "TRANSPOSE")
    return [make_node(ctx, "transpose", inputs[:1], outputs, axes=tuple(perm))]


@converts(B.SLICE)
def slice_(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 3)
    shape = ctx.shape(inputs[0])
    begin, size = ints(ctx, inputs[1], "SLICE begin"), ints(ctx, inputs[2], "SLICE size")
    if not len(begin) == len(size) == len(shape):
        ctx.fail(f"SLICE begin {begin} and size {size} need {len(shape)} values each")
    counts = [d - b if s == -1 else s for b, s, d in zip(begin, size, shape)]
    if any(b < 0 or c < 0 or b + c > d for b, c, d in zip(begin, counts, shape)):
        ctx.fail(f"SLICE begin {begin} size {size} is outside {list(shape)}")
    same_quant(ctx, inputs[:1], outputs, "SLICE")
    return [slice_node(ctx, inputs[0], outputs[0], begin, counts)]


@converts(B.SPLIT)
def split(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    rank = len(ctx.shape(inputs[1]))
    axis = scalar_axis(ctx, inputs[0], rank, "SPLIT axis")
    dim = ctx.shape(inputs[1])[axis]
    if dim % len(outputs):
        ctx.fail(f"SPLIT cannot cut axis {axis} of size {dim} into {len(outputs)} equal parts")
    same_quant(ctx, inputs[1:], outputs, "SPLIT")
    return split_along(ctx, inputs[1], outputs, axis, [dim // len(outputs)] * len(outputs))


@converts(B.SPLIT_V)
def split_v(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 3)
    rank = len(ctx.shape(inputs[0]))
    axis = scalar_axis(ctx, inputs[2], rank, "SPLIT_V axis")
    sizes = ints(ctx, inputs[1], "SPLIT_V size_splits")
    if sizes.count(-1) == 1:  # one size is what the others leave
        sizes[sizes.index(-1)] = ctx.shape(inputs[0])[axis] - (sum(sizes) + 1)
    same_quant(ctx, inputs[:1], outputs, "SPLIT_V")
    return split_along(ctx, inputs[0], outputs, axis, sizes)


@converts(B.UNPACK)
def unpack(ctx, op, inputs, outputs):
    o = ctx.options(op, tflite.UnpackOptions)
    shape = ctx.shape(inputs[0])
    axis = ctx.axis(o.Axis() if o is not None else 0, len(shape), "UNPACK axis")
    if shape[axis] != len(outputs):
        ctx.fail(f"UNPACK of axis {axis} (size {shape[axis]}) needs {shape[axis]} outputs, got {len(outputs)}")
    same_quant(ctx, inputs[:1], outputs, "UNPACK")
    counts = list(shape)
    counts[axis] = 1
    nodes = []
    for index, output in enumerate(outputs):
        begin = [0] * len(shape)
        begin[axis] = index
        nodes.append(slice_node(ctx, inputs[0], output, begin, counts))
    return nodes


@converts(B.PACK)
def pack(ctx, op, inputs, outputs):
    o = ctx.options(op, tflite.PackOptions)
    out_shape = ctx.shape(outputs[0])
    axis = ctx.axis(o.Axis() if o is not None else 0, len(out_shape), "PACK axis")
    expanded = out_shape[:axis] + (1,) + out_shape[axis + 1:]
    if out_shape[axis] != len(inputs) or any(ctx.shape(n) != expanded[:axis] + expanded[axis + 1:] for n in inputs):
        ctx.fail(f"PACK of {len(inputs)} inputs does not make {list(out_shape)} along axis {axis}")
    same_quant(ctx, inputs, outputs, "PACK")
    nodes, parts = [], []
    for index, name in enumerate(inputs):  # each input gains the new axis: a reshape, which aliases
        part = fresh_name(ctx.tensors, f"{outputs[0]}/pack{index}")
        ctx.tensors[part] = Tensor(part, ctx.tensors[name].type.with_shape(expanded))
        nodes.append(make_node(ctx, "reshape", [name], [part], newshape=expanded))
        parts.append(part)
    return nodes + [make_node(ctx, "concatenate", parts, outputs, axis=axis)]
