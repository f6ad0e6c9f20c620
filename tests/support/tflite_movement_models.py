"""Single-op TFLite models of the data-movement operators (TRANSPOSE, SLICE, SPLIT, SPLIT_V, PACK, UNPACK,
GATHER, GATHER_ND, BROADCAST_TO, TILE, FILL, ZEROS_LIKE, MIRROR_PAD, SPACE_TO_DEPTH, DEPTH_TO_SPACE,
SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, CAST), written with Micro Relay's TFLite writer.

Every builder takes the input shape and the operator's own parameters, derives the output shapes the way
TensorFlow does (numpy spellings of the ops' definitions, so a wrong shape fails TFLite Micro's Prepare) and
gives every raw-copied tensor one quantization, as TFLite Micro expects.
"""

from __future__ import annotations

import numpy as np

from micro_relay.frontend.tflite.writer import TFLiteBuilder

QUANTIZED = ("int8", "int16")


def _q(dtype: str, quant) -> dict:
    if dtype not in QUANTIZED or quant is None:
        return {}
    scale, zero_point = quant
    return {"scale": scale, "zero_point": zero_point if dtype == "int8" else 0}


def single_op(op: str, dtype: str, in_shape, out_shapes, consts=(), quant=(0.05, 0), runtime=(), **options):
    """`op` on input x (dtype, in_shape), constant int32 inputs `consts` ((name, values) or (name, values,
    dtype), placed after x unless named "first:..."), extra runtime inputs `runtime` ((name, shape, dtype)),
    and one output per shape in out_shapes."""
    b = TFLiteBuilder()
    x = b.tensor("x", in_shape, dtype, **_q(dtype, quant))
    inputs, graph_inputs, first = [x], [x], []
    for const in consts:
        name, values = const[0], np.asarray(const[1])
        kind = const[2] if len(const) > 2 else "int32"
        t = b.tensor(name.split(":")[-1], values.shape, kind, data=values)
        (first if name.startswith("first:") else inputs).append(t)
    for name, shape, kind in runtime:
        t = b.tensor(name, shape, kind)
        inputs.append(t)
        graph_inputs.append(t)
    outputs = [b.tensor(f"y{i}", s, dtype, **_q(dtype, quant)) for i, s in enumerate(out_shapes)]
    b.op(op, first + inputs, outputs, **options)
    return b.inputs(*graph_inputs).outputs(*outputs).build()


def transpose_model(dtype="int8", shape=(1, 4, 4, 3), perm=(0, 3, 1, 2), quant=(0.05, 0)) -> bytes:
    out = tuple(shape[p] for p in perm)
    return single_op("TRANSPOSE", dtype, shape, [out], [("perm", list(perm))], quant)


def slice_model(dtype="int8", shape=(1, 6, 6, 3), begin=(0, 1, 2, 0), size=(1, 4, -1, 2), quant=(0.05, 0)) -> bytes:
    out = tuple(d - b if s == -1 else s for d, b, s in zip(shape, begin, size))
    return single_op("SLICE", dtype, shape, [out], [("begin", list(begin)), ("size", list(size))], quant)


def split_model(dtype="int8", shape=(1, 4, 6), axis=-1, num_splits=2, quant=(0.05, 0)) -> bytes:
    out = list(shape)
    out[axis] //= num_splits
    return single_op("SPLIT", dtype, shape, [tuple(out)] * num_splits, [("first:axis", [axis])], quant,
                     num_splits=num_splits)


def split_v_model(dtype="int8", shape=(1, 4, 6), axis=1, sizes=(1, -1, 2), quant=(0.05, 0)) -> bytes:
    known = [s for s in sizes if s != -1]
    outs = []
    for s in sizes:
        out = list(shape)
        out[axis] = shape[axis] - sum(known) if s == -1 else s
        outs.append(tuple(out))
    return single_op("SPLIT_V", dtype, shape, outs, [("sizes", list(sizes)), ("axis", [axis])], quant,
                     num_splits=len(sizes))


def pack_model(dtype="int8", shape=(2, 3), count=3, axis=0, quant=(0.05, 0)) -> bytes:
    b = TFLiteBuilder()
    q = _q(dtype, quant)
    xs = [b.tensor(f"x{i}", shape, dtype, **q) for i in range(count)]
    out = list(shape)
    out.insert(axis % (len(shape) + 1), count)
    y = b.tensor("y", out, dtype, **q)
    b.op("PACK", xs, [y], values_count=count, axis=axis)
    return b.inputs(*xs).outputs(y).build()


def unpack_model(dtype="int8", shape=(2, 3, 4), axis=1, quant=(0.05, 0)) -> bytes:
    rank = len(shape)
    out = tuple(d for i, d in enumerate(shape) if i != axis % rank)
    return single_op("UNPACK", dtype, shape, [out] * shape[axis], (), quant, num=shape[axis], axis=axis)


def gather_model(dtype="int8", shape=(10, 8), indices=(3, 0, 9), axis=0, batch_dims=0, constant=True,
                 quant=(0.05, 0)) -> bytes:
    """GATHER with constant positions (their values) or runtime ones (`indices` is then their shape)."""
    rank = len(shape)
    axis %= rank
    idx_shape = np.asarray(indices).shape if constant else tuple(indices)
    out = tuple(shape[:axis]) + tuple(idx_shape[batch_dims:]) + tuple(shape[axis + 1:])
    consts = [("indices", np.asarray(indices, np.int32))] if constant else []
    runtime = () if constant else [("indices", idx_shape, "int32")]
    return single_op("GATHER", dtype, shape, [out], consts, quant, runtime, axis=axis, batch_dims=batch_dims)


def gather_nd_model(dtype="int8", shape=(5, 4, 3), index_shape=(2, 2), quant=(0.05, 0)) -> bytes:
    """GATHER_ND with runtime int32 positions of `index_shape` ([..., depth])."""
    out = tuple(index_shape[:-1]) + tuple(shape[index_shape[-1]:])
    return single_op("GATHER_ND", dtype, shape, [out], (), quant, [("indices", index_shape, "int32")])


def broadcast_to_model(dtype="int8", shape=(3, 1), target=(2, 3, 4), quant=(0.05, 0)) -> bytes:
    return single_op("BROADCAST_TO", dtype, shape, [tuple(target)], [("shape", list(target))], quant)


def tile_model(dtype="int8", shape=(2, 3), multiples=(2, 2), quant=(0.05, 0)) -> bytes:
    out = tuple(d * m for d, m in zip(shape, multiples))
    return single_op("TILE", dtype, shape, [out], [("multiples", list(multiples))], quant)


def fill_model(dtype="float32", dims=(2, 3), quant=(0.05, 0)) -> bytes:
    """FILL of a runtime scalar (x) over constant dims."""
    return single_op("FILL", dtype, (), [tuple(dims)], [("first:dims", list(dims))], quant)


def zeros_like_model(dtype="float32", shape=(2, 3), quant=(0.05, 0)) -> bytes:
    return single_op("ZEROS_LIKE", dtype, shape, [tuple(shape)], (), quant)


def mirror_pad_model(dtype="int8", shape=(1, 4, 4, 3), paddings=((0, 0), (1, 2), (2, 1), (0, 0)), mode="REFLECT",
                     quant=(0.05, 0)) -> bytes:
    out = tuple(d + lo + hi for d, (lo, hi) in zip(shape, paddings))
    return single_op("MIRROR_PAD", dtype, shape, [out], [("paddings", np.asarray(paddings))], quant, mode=mode)


def space_to_depth_model(dtype="int8", shape=(1, 4, 6, 2), block=2, quant=(0.05, 0)) -> bytes:
    n, h, w, c = shape
    return single_op("SPACE_TO_DEPTH", dtype, shape, [(n, h // block, w // block, c * block * block)], (), quant,
                     block_size=block)


def depth_to_space_model(dtype="int8", shape=(1, 2, 3, 8), block=2, quant=(0.05, 0)) -> bytes:
    n, h, w, c = shape
    return single_op("DEPTH_TO_SPACE", dtype, shape, [(n, h * block, w * block, c // (block * block))], (), quant,
                     block_size=block)


def space_to_batch_model(dtype="int8", shape=(1, 5, 4, 2), block=(2, 2), paddings=((1, 0), (0, 0)),
                         quant=(0.05, 0)) -> bytes:
    n, *spatial, c = shape
    grid = [(d + lo + hi) // b for d, b, (lo, hi) in zip(spatial, block, paddings)]
    out = (n * int(np.prod(block)), *grid, c)
    return single_op("SPACE_TO_BATCH_ND", dtype, shape, [out],
                     [("block", list(block)), ("paddings", np.asarray(paddings))], quant)


def batch_to_space_model(dtype="int8", shape=(4, 2, 3, 2), block=(2, 2), crops=((1, 0), (0, 1)),
                         quant=(0.05, 0)) -> bytes:
    n, *spatial, c = shape
    image = [d * b - lo - hi for d, b, (lo, hi) in zip(spatial, block, crops)]
    out = (n // int(np.prod(block)), *image, c)
    return single_op("BATCH_TO_SPACE_ND", dtype, shape, [out],
                     [("block", list(block)), ("crops", np.asarray(crops))], quant)


def cast_model(in_dtype="int32", out_dtype="float32", shape=(2, 5)) -> bytes:
    b = TFLiteBuilder()
    x = b.tensor("x", shape, in_dtype)
    y = b.tensor("y", shape, out_dtype)
    b.op("CAST", [x], [y], in_data_type=in_dtype, out_data_type=out_dtype)
    return b.inputs(x).outputs(y).build()
