"""One small float graph per newer op with an integer kernel, at shapes real networks have, and the inputs
its calibration and test samples come from.

`CASES` maps a readable name to (builder, sampler, int16): the builder returns the float graph, the sampler
(graph, count, seed) -> {input name: (count, *shape) array}, and int16 says whether the op has an int16
kernel that TFLite Micro also runs on int16 (then the case also runs with the op in int16; otherwise the
quantizer must refuse --int16 for it).
"""

from __future__ import annotations

import numpy as np

from micro_relay.ir.graph import Tensor
from micro_relay.ir.types import DType, TensorType

from .graphs import Builder


def normal(scale=1.0):
    def draw(graph, count, seed):
        rng = np.random.default_rng(seed)
        return {n: (rng.standard_normal((count, *graph.type_of(n).shape)) * scale).astype(np.float32)
                for n in graph.inputs}
    return draw


def uniform(lo, hi):
    def draw(graph, count, seed):
        rng = np.random.default_rng(seed)
        return {n: rng.uniform(lo, hi, (count, *graph.type_of(n).shape)).astype(np.float32) for n in graph.inputs}
    return draw


def unary(op: str, in_shape, **attrs):
    def build():
        b = Builder(31)
        return b.graph(b.op(op, (b.input("x", in_shape),), "y", **attrs))
    return build


def binary(op: str, a_shape, b_shape, **attrs):
    def build():
        b = Builder(32)
        return b.graph(b.op(op, (b.input("a", a_shape), b.input("b", b_shape)), "y", **attrs))
    return build


def with_constant(op: str, shape, constant, **attrs):
    """op(x, a seeded or given float constant): prelu's alpha, take's and gather_nd's int32 indices."""
    def build():
        b = Builder(33)
        data = np.asarray(constant)
        if data.dtype.kind == "i":
            b.tensors["k"] = Tensor("k", TensorType(data.shape, DType.INT32), data.astype(np.int32))
        else:
            b.const("k", data)
        return b.graph(b.op(op, (b.input("x", shape), "k"), "y", **attrs))
    return build


def index_of(op: str, shape):
    """argmax / argmin along the last axis, an int32 index (the op's infer keeps the output's dtype)."""
    def build():
        b = Builder(34)
        y = b.op(op, (b.input("x", shape),), "y", axis=len(shape) - 1)
        b.tensors[y] = Tensor(y, TensorType(tuple(shape[:-1]), DType.INT32))
        return b.graph(y)
    return build


def select(shape):
    """where(a > b, a, b): a select fed by a comparison (the bool stays bool)."""
    def build():
        b = Builder(35)
        a, c = b.input("a", shape), b.input("b", shape)
        return b.graph(b.op("where", (b.op("greater", (a, c), "cond"), a, c), "y"))
    return build


ALPHA = np.linspace(0.05, 0.3, 16)
CASES = {
    # unary math
    "abs kws features [1,49,10,1]": (unary("abs", (1, 49, 10, 1)), normal(3.0), True),
    "rsqrt pooled [1,1,1,1280]": (unary("rsqrt", (1, 1, 1, 1280)), uniform(0.05, 4.0), True),
    "elu [1,24,24,8]": (unary("nn.elu", (1, 24, 24, 8)), normal(2.0), False),
    "hard_swish [1,14,14,16]": (unary("nn.hard_swish", (1, 14, 14, 16)), normal(3.0), False),
    "l2_normalize embedding [1,128]": (unary("nn.l2_normalize", (1, 128)), normal(), False),
    "sigmoid [1,64]": (unary("sigmoid", (1, 64)), normal(4.0), True),
    "tanh [1,64]": (unary("tanh", (1, 64)), normal(2.0), True),
    "sigmoid wide input [1,64]": (unary("sigmoid", (1, 64)), normal(2e5), True),
    "tanh tiny input [1,64]": (unary("tanh", (1, 64)), normal(1e-10), True),
    # binary math
    "maximum broadcast [1,8,8,16] [1,1,1,16]": (binary("maximum", (1, 8, 8, 16), (1, 1, 1, 16)), normal(), True),
    "minimum [1,8,8,16]": (binary("minimum", (1, 8, 8, 16), (1, 8, 8, 16)), normal(), True),
    "squared_difference [1,8,8,16]": (binary("squared_difference", (1, 8, 8, 16), (1, 1, 1, 16)), normal(), False),
    "divide narrow divisor [1,16]": (binary("divide", (1, 16), (1, 16)), uniform(1.0, 2.0), False),
    "divide wide divisor [1,16]": (binary("divide", (1, 16), (1, 16)), uniform(0.25, 2.0), False),
    "prelu per channel [1,8,8,16]": (with_constant("nn.prelu", (1, 8, 8, 16), ALPHA), normal(), True),
    "batch_matmul attention [1,16,8] [1,16,8]^T": (binary("nn.batch_matmul", (1, 16, 8), (1, 16, 8), adj_y=True),
                                                   normal(), True),
    **{f"{op} [1,10,10]": (binary(op, (1, 10, 10), (1, 1, 10)), normal(), False)
       for op in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")},
    "where of a comparison [1,32]": (select((1, 32)), normal(), True),
    # reductions and resizing
    "sum kws [1,49,10,1]": (unary("sum", (1, 49, 10, 1), axis=(1, 2), keepdims=False), normal(), True),
    "max spatial [1,7,7,64]": (unary("max", (1, 7, 7, 64), axis=(1, 2), keepdims=True), normal(), False),
    "min spatial [1,7,7,64]": (unary("min", (1, 7, 7, 64), axis=(1, 2), keepdims=False), normal(), False),
    "argmax classes [1,1000]": (index_of("argmax", (1, 1000)), normal(), False),
    "argmin [1,4,12]": (index_of("argmin", (1, 4, 12)), normal(), False),
    "resize nearest x2 [1,12,12,8]": (unary("image.resize2d", (1, 12, 12, 8), size=(24, 24),
                                            method="nearest_neighbor"), normal(), False),
    "resize bilinear [1,12,12,8]": (unary("image.resize2d", (1, 12, 12, 8), size=(24, 24), method="linear",
                                          half_pixel_centers=True), normal(), False),
    # data movement
    "take embedding rows [1,64]": (with_constant("take", (1, 64), np.array([3, 0, 63, 7]), axis=1), normal(), False),
    "gather_nd [4,8]": (with_constant("gather_nd", (4, 8), np.array([[1], [3], [0]])), normal(), False),
    "tile [1,1,1,16]": (unary("tile", (1, 1, 1, 16), reps=(1, 4, 4, 1)), normal(), False),
    "full of a runtime scalar -> [1,8,16]": (unary("full", (), shape=(1, 8, 16)), normal(), False),
    "broadcast_to [1,1,16]": (unary("broadcast_to", (1, 1, 16), shape=(1, 8, 16)), normal(), True),
    "mirror_pad [1,8,8,4]": (unary("nn.mirror_pad", (1, 8, 8, 4), pad_width=(0, 0, 1, 1, 2, 2, 0, 0)),
                             normal(), False),
    "space_to_depth [1,8,8,4]": (unary("nn.space_to_depth", (1, 8, 8, 4), block_size=2), normal(), False),
    "depth_to_space [1,4,4,16]": (unary("nn.depth_to_space", (1, 4, 4, 16), block_size=2), normal(), False),
    "space_to_batch_nd [1,8,8,4]": (unary("nn.space_to_batch_nd", (1, 8, 8, 4), block_shape=(2, 2),
                                          paddings=(0, 0, 0, 0)), normal(), False),
    "batch_to_space_nd [4,4,4,4]": (unary("nn.batch_to_space_nd", (4, 4, 4, 4), block_shape=(2, 2),
                                          crops=(0, 0, 0, 0)), normal(), False),
}
