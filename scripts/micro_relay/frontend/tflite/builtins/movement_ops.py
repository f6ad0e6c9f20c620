"""Data-movement builtins with IR ops of their own: GATHER (take), GATHER_ND, BROADCAST_TO, TILE, FILL
(full), ZEROS_LIKE, MIRROR_PAD, SPACE_TO_DEPTH, DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND and
CAST. Shape-like inputs must be constants (the output shapes are static anyway); raw copies keep their
input's type and quantization (movement.same_quant)."""

from __future__ import annotations

import tflite
from tflite.BuiltinOperator import BuiltinOperator as B
from tflite.MirrorPadMode import MirrorPadMode

from .context import converts, make_node
from .movement import ints, same_quant


@converts(B.GATHER)
def gather(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    o = ctx.options(op, tflite.GatherOptions)
    rank = len(ctx.shape(inputs[0]))
    axis = ctx.axis(o.Axis() if o is not None else 0, rank, "GATHER axis")
    batch_dims = o.BatchDims() if o is not None else 0
    if batch_dims < 0:
        batch_dims += len(ctx.shape(inputs[1]))
    same_quant(ctx, inputs[:1], outputs, "GATHER")
    return [make_node(ctx, "take", inputs, outputs, axis=axis, batch_dims=batch_dims)]


@converts(B.GATHER_ND)
def gather_nd(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    same_quant(ctx, inputs[:1], outputs, "GATHER_ND")
    return [make_node(ctx, "gather_nd", inputs, outputs)]


@converts(B.BROADCAST_TO)
def broadcast_to(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    shape = tuple(ctx.shape(outputs[0]))
    if ctx.tensors[inputs[1]].is_constant and tuple(ints(ctx, inputs[1], "BROADCAST_TO shape")) != shape:
        ctx.fail(f"BROADCAST_TO shape {ints(ctx, inputs[1], 'shape')} is not the output's {list(shape)}")
    same_quant(ctx, inputs[:1], outputs, "BROADCAST_TO")
    return [make_node(ctx, "broadcast_to", inputs[:1], outputs, shape=shape)]


@converts(B.TILE)
def tile(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    reps = ints(ctx, inputs[1], "TILE multiples")
    if len(reps) != len(ctx.shape(inputs[0])) or min(reps, default=1) < 1:
        ctx.fail(f"TILE multiples {reps} must be one positive count per axis of {list(ctx.shape(inputs[0]))}")
    same_quant(ctx, inputs[:1], outputs, "TILE")
    return [make_node(ctx, "tile", inputs[:1], outputs, reps=tuple(reps))]


@converts(B.FILL)
def fill(ctx, op, inputs, outputs):
    """FILL(dims, value): the dims are the output's static shape; a constant value is folded by the pipeline."""
    ctx.need_inputs(inputs, 2)
    same_quant(ctx, inputs[1:], outputs, "FILL")
    return [make_node(ctx, "full", inputs[1:], outputs, shape=tuple(ctx.shape(outputs[0])))]


@converts(B.ZEROS_LIKE)
def zeros_like(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 1)
    return [make_node(ctx, "zeros_like", inputs, outputs)]


@converts(B.MIRROR_PAD)
def mirror_pad(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    o = ctx.options(op, tflite.MirrorPadOptions)
    mode = o.Mode() if o is not None else MirrorPadMode.REFLECT
    if mode not in (MirrorPadMode.REFLECT, MirrorPadMode.SYMMETRIC):
        ctx.fail(f"MIRROR_PAD mode {mode} is neither REFLECT nor SYMMETRIC")
    pads = ints(ctx, inputs[1], "MIRROR_PAD paddings")
    if len(pads) != 2 * len(ctx.shape(inputs[0])):
        ctx.fail(f"MIRROR_PAD paddings {pads} need a (before, after) pair per axis")
    same_quant(ctx, inputs[:1], outputs, "MIRROR_PAD")
    return [make_node(ctx, "nn.mirror_pad", inputs[:1], outputs, pad_width=tuple(pads),
                      mode="SYMMETRIC" if mode == MirrorPadMode.SYMMETRIC else "REFLECT")]


def _block_size(ctx, op, cls) -> int:
    size = ctx.options(op, cls, required=True).BlockSize()
    if size < 1:
        ctx.fail(f"block_size {size} must be positive")
    return int(size)


@converts(B.SPACE_TO_DEPTH)
def space_to_depth(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 1)
    same_quant(ctx, inputs, outputs, "SPACE_TO_DEPTH")
    return [make_node(ctx, "nn.space_to_depth", inputs, outputs,
                      block_size=_block_size(ctx, op, tflite.SpaceToDepthOptions))]


@converts(B.DEPTH_TO_SPACE)
def depth_to_space(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 1)
    same_quant(ctx, inputs, outputs, "DEPTH_TO_SPACE")
    return [make_node(ctx, "nn.depth_to_space", inputs, outputs,
                      block_size=_block_size(ctx, op, tflite.DepthToSpaceOptions))]


def _space_batch(ctx, inputs, outputs, op_name: str, pairs_name: str, what: str):
    ctx.need_inputs(inputs, 3)
    block = ints(ctx, inputs[1], f"{what} block_shape")
    pairs = ints(ctx, inputs[2], f"{what} {pairs_name}")
    same_quant(ctx, inputs[:1], outputs, what)
    attrs = {"block_shape": tuple(block), pairs_name: tuple(pairs)}
    return [make_node(ctx, op_name, inputs[:1], outputs, **attrs)]


@converts(B.SPACE_TO_BATCH_ND)
def space_to_batch_nd(ctx, op, inputs, outputs):
    return _space_batch(ctx, inputs, outputs, "nn.space_to_batch_nd", "paddings", "SPACE_TO_BATCH_ND")


@converts(B.BATCH_TO_SPACE_ND)
def batch_to_space_nd(ctx, op, inputs, outputs):
    return _space_batch(ctx, inputs, outputs, "nn.batch_to_space_nd", "crops", "BATCH_TO_SPACE_ND")


@converts(B.CAST)
def cast(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 1)
    return [make_node(ctx, "cast", inputs, outputs, dtype=ctx.tensors[outputs[0]].type.dtype.value)]
