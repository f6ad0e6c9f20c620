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


def dilated_conv_models(dtype="int8", shape=(1, 9, 10, 3), out_channels=4, kernel=(3, 3), dilation=(2, 2),
                        padding="SAME", depthwise=False, in_quant=(0.05, 0), out_zp=0, seed=0) -> tuple[bytes, bytes]:
    """(TensorFlow's atrous chain SPACE_TO_BATCH_ND -> VALID CONV_2D / DEPTHWISE_CONV_2D -> BATCH_TO_SPACE_ND,
    the same convolution as one CONV_2D / DEPTHWISE_CONV_2D with `dilation`), with one set of weights.
    Paddings and crops are TensorFlow's (with_space_to_batch / required_space_to_batch_paddings): SAME pads
    (k - 1) * d split low half first, then the ends grow to a multiple of the block and are cropped back."""
    rng = np.random.default_rng(seed)
    n, h, w, c = shape
    channels = c if depthwise else out_channels
    filt_shape = (1, *kernel, c) if depthwise else (out_channels, *kernel, c)
    base, crops, out_hw = [], [], []
    for size, k, d in zip((h, w), kernel, dilation):
        total = (k - 1) * d if padding == "SAME" else 0
        lo, hi = total // 2, total - total // 2
        extra = (-(size + lo + hi)) % d
        base.append((lo, hi + extra))
        crops.append((0, extra))
        out_hw.append(size + total - (k - 1) * d)
    grids = [(size + lo + hi) // d for size, (lo, hi), d in zip((h, w), base, dilation)]
    inner = [g - k + 1 for g, k in zip(grids, kernel)]
    terms = kernel[0] * kernel[1] * (1 if depthwise else c)
    quantized = dtype != "float32"
    in_q = {"scale": in_quant[0], "zero_point": in_quant[1]} if quantized else {}
    out_q = {"scale": in_quant[0] * 0.01 * 74 * 73 * terms ** 0.5 * 3 / 127, "zero_point": out_zp} if quantized else {}
    weights = rng.integers(-127, 128, filt_shape) if quantized else rng.standard_normal(filt_shape) / terms ** 0.5
    bias = rng.integers(-2000, 2001, channels) if quantized else rng.standard_normal(channels) * 0.5
    axis = 3 if depthwise else 0
    op = "DEPTHWISE_CONV_2D" if depthwise else "CONV_2D"

    def conv(b: TFLiteBuilder, x: str, y: str, **options):
        wq = {"scale": [0.01] * channels, "zero_point": 0, "axis": axis} if quantized else {}
        f = b.tensor("filter", filt_shape, "int8" if quantized else "float32", data=weights, **wq)
        bq = {"scale": [in_quant[0] * 0.01] * channels, "zero_point": 0, "axis": 0} if quantized else {}
        bt = b.tensor("bias", (channels,), "int32" if quantized else "float32", data=bias, **bq)
        extra = {"depth_multiplier": 1} if depthwise else {}
        b.op(op, [x, f, bt], [y], **options, **extra)

    chain = TFLiteBuilder()
    x = chain.tensor("x", shape, dtype, **in_q)
    blk = chain.tensor("block", (2,), "int32", data=list(dilation))
    pads = chain.tensor("paddings", (2, 2), "int32", data=np.asarray(base))
    s2b = chain.tensor("phases", (n * dilation[0] * dilation[1], *grids, c), dtype, **in_q)
    chain.op("SPACE_TO_BATCH_ND", [x, blk, pads], [s2b])
    mid = chain.tensor("phase_conv", (n * dilation[0] * dilation[1], *inner, channels), dtype, **out_q)
    conv(chain, s2b, mid, padding="VALID")
    blk2 = chain.tensor("block2", (2,), "int32", data=list(dilation))
    crop = chain.tensor("crops", (2, 2), "int32", data=np.asarray(crops))
    y = chain.tensor("y", (n, *out_hw, channels), dtype, **out_q)
    chain.op("BATCH_TO_SPACE_ND", [mid, blk2, crop], [y])

    direct = TFLiteBuilder()
    x2 = direct.tensor("x", shape, dtype, **in_q)
    y2 = direct.tensor("y", (n, *out_hw, channels), dtype, **out_q)
    conv(direct, x2, y2, padding=padding, dilation=dilation)
    return chain.inputs(x).outputs(y).build(), direct.inputs(x2).outputs(y2).build()


def writer_examples():
    """(operator, model) for each movement operator the writer knows, one runtime input each (for the
    writer's own tests)."""
    f = "float32"
    yield "TRANSPOSE", transpose_model(f, (2, 3, 4), (2, 0, 1))
    yield "SLICE", slice_model(f, (4, 5), (1, 0), (2, -1))
    yield "SPLIT", split_model(f, (2, 6), 1, 3)
    yield "SPLIT_V", split_v_model(f, (2, 6), 1, (2, -1))
    yield "PACK", pack_model(f, (2, 3), 1)
    yield "UNPACK", unpack_model(f, (2, 3), 0)
    yield "GATHER", gather_model(f, (5, 2), (4, 0), 0)
    b = TFLiteBuilder()
    x = b.tensor("x", (3, 2), f)
    i = b.tensor("i", (2, 2), "int32", data=[[2, 1], [0, 0]])
    y = b.tensor("y", (2,), f)
    yield "GATHER_ND", b.op("GATHER_ND", [x, i], [y]).inputs(x).outputs(y).build()
    yield "BROADCAST_TO", broadcast_to_model(f, (3, 1), (2, 3, 4))
    yield "TILE", tile_model(f, (2, 3), (1, 2))
    yield "FILL", fill_model(f, (2, 2))
    yield "ZEROS_LIKE", zeros_like_model(f, (2, 3))
    yield "MIRROR_PAD", mirror_pad_model(f, (3, 3), ((1, 1), (0, 2)), "SYMMETRIC")
    yield "SPACE_TO_DEPTH", space_to_depth_model(f, (1, 2, 2, 1), 2)
    yield "DEPTH_TO_SPACE", depth_to_space_model(f, (1, 1, 1, 4), 2)
    yield "SPACE_TO_BATCH_ND", space_to_batch_model(f, (1, 4, 4, 1), (2, 2), ((0, 0), (0, 0)))
    yield "BATCH_TO_SPACE_ND", batch_to_space_model(f, (4, 2, 2, 1), (2, 2), ((0, 0), (1, 0)))
    yield "CAST", cast_model("float32", "int32", (2, 3))
