"""Float blocks of real networks that use the newer ops, built as IR with seeded weights (graphs.Builder).

Each block is drawn in its builder's docstring and ends in what the network ends in (a classifier's logits,
a segmenter's per-pixel logits). `BLOCKS` maps a name to (builder, input scale), as graphs.SHAPES does.
Convolutions use 'SAME' padding (symmetric for odd kernels) so the tests can also write them as TFLite.
"""

from __future__ import annotations

import numpy as np

from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.registry import get_op
from micro_relay.ir.types import DType, TensorType

from .graphs import Builder


def _pointwise(b: Builder, x: str, out: str, channels: int, activation="none") -> str:
    return b.conv(x, out, channels, kernel=1, padding=0, activation=activation)


def _depthwise(b: Builder, x: str, out: str, stride=1, activation="none") -> str:
    c = b.tensors[x].type.shape[-1]
    w = b.weights(f"{out}.w", (1, 3, 3, c), 9)
    bias = b.const(f"{out}.b", b.rng.standard_normal(c) * 0.1)
    pad = (1, 1, 1, 1) if stride == 1 else (0, 0, 1, 1)  # TFLite SAME: the extra row and column at the end
    return b.op("nn.depthwise_conv2d", (x, w, bias), out, strides=(stride, stride), padding=pad,
                activation=activation)


def _classifier(b: Builder, x: str, classes: int = 10) -> str:
    pooled = b.op("mean", (x,), "pooled", axis=(1, 2), keepdims=False)
    return b.dense(pooled, "logits", classes)


def mobilenet_v3() -> object:
    """MobileNetV3's inverted bottleneck with hard_swish and its hard-sigmoid squeeze-excite:
    x[1,14,14,24] ─ conv1x1 96 ─ hard_swish ─ dw3x3 ─ hard_swish ─► h ─┬──────────────────────── multiply ─
                    └ mean keepdims ─ conv1x1 24 relu ─ conv1x1 96 ─ add 3 ─ relu6 ─ multiply 1/6 ┘
    ─ conv1x1 24 ─ add x ─ mean ─ dense ─► logits"""
    b = Builder(21)
    x = b.input("x", (1, 14, 14, 24))
    e = b.op("nn.hard_swish", (_pointwise(b, x, "expand", 96),), "expand_hs")
    h = b.op("nn.hard_swish", (_depthwise(b, e, "dw"),), "dw_hs")
    s = b.op("mean", (h,), "se_pool", axis=(1, 2), keepdims=True)
    s = _pointwise(b, _pointwise(b, s, "se_reduce", 24, "relu"), "se_expand", 96)
    s = b.op("nn.relu6", (b.op("add", (s, b.const("three", [3.0])), "se_plus3"),), "se_relu6")
    gate = b.op("multiply", (s, b.const("sixth", [1.0 / 6.0])), "se_gate")
    scaled = b.op("multiply", (h, gate), "se_scaled")
    y = b.op("add", (_pointwise(b, scaled, "project", 24), x), "residual")
    return b.graph(_classifier(b, y))


def efficientnet() -> object:
    """EfficientNet's MBConv: swish as sigmoid(x) * x, squeeze-excite with a sigmoid gate:
    x[1,12,12,16] ─ conv1x1 64 ─ swish ─ dw3x3 ─ swish ─► h ─┬──────────────────────── multiply ─
                    └ mean keepdims ─ conv1x1 4 ─ swish ─ conv1x1 64 ─ sigmoid ┘
    ─ conv1x1 16 ─ mean ─ dense ─► logits              (swish(t) = multiply(t, sigmoid(t)))"""
    b = Builder(22)

    def swish(t: str, name: str) -> str:
        return b.op("multiply", (t, b.op("sigmoid", (t,), f"{name}_sig")), name)

    x = b.input("x", (1, 12, 12, 16))
    e = swish(_pointwise(b, x, "expand", 64), "expand_swish")
    h = swish(_depthwise(b, e, "dw"), "dw_swish")
    s = b.op("mean", (h,), "se_pool", axis=(1, 2), keepdims=True)
    s = swish(_pointwise(b, s, "se_reduce", 4), "se_swish")
    gate = b.op("sigmoid", (_pointwise(b, s, "se_expand", 64),), "se_gate")
    scaled = b.op("multiply", (h, gate), "se_scaled")
    return b.graph(_classifier(b, _pointwise(b, scaled, "project", 16)))


def shufflenet_v2() -> object:
    """ShuffleNetV2's basic unit: split the channels, transform one half, concatenate, shuffle:
    x[1,8,8,48] ─┬ strided_slice [0:24] ───────────────────────────────────── concatenate ─ reshape [1,8,8,2,24]
                 └ strided_slice [24:48] ─ conv1x1 relu ─ dw3x3 ─ conv1x1 relu ┘
    ─ transpose (0,1,2,4,3) ─ reshape [1,8,8,48] ─ mean ─ dense ─► logits"""
    b = Builder(23)
    x = b.input("x", (1, 8, 8, 48))
    left = b.op("strided_slice", (x,), "left", begin=(0, 0, 0, 0), end=(1, 8, 8, 24), strides=(1, 1, 1, 1),
                newshape=(1, 8, 8, 24))
    right = b.op("strided_slice", (x,), "right", begin=(0, 0, 0, 24), end=(1, 8, 8, 48), strides=(1, 1, 1, 1),
                 newshape=(1, 8, 8, 24))
    r = _pointwise(b, _depthwise(b, _pointwise(b, right, "branch1", 24, "relu"), "branch_dw"), "branch2", 24, "relu")
    cat = b.op("concatenate", (left, r), "cat", axis=3)
    groups = b.op("reshape", (cat,), "groups", newshape=(1, 8, 8, 2, 24))
    shuffled = b.op("transpose", (groups,), "shuffle", axes=(0, 1, 2, 4, 3))
    flat = b.op("reshape", (shuffled,), "shuffled", newshape=(1, 8, 8, 48))
    return b.graph(_classifier(b, flat))


def unet() -> object:
    """A U-Net level: encode, pool, encode, come back up twice (bilinear resize, transposed conv) and join
    the skip connection:
    x[1,16,16,3] ─ conv3x3 8 relu ─► skip ─ max_pool 2 ─ conv3x3 16 relu ─► deep ─┬ resize2d x2 linear ─┐
                                      └────────────────────────────────────────── │ ─────────────── concatenate ─
                                                                                  └ conv2d_transpose 8 ┘
    ─ conv3x3 8 relu ─ conv1x1 2 ─► mask (per-pixel logits)"""
    b = Builder(24)
    x = b.input("x", (1, 16, 16, 3))
    skip = b.conv(x, "enc1", 8)
    pooled = b.op("nn.max_pool2d", (skip,), "pool", pool_size=(2, 2), strides=(2, 2))
    deep = b.conv(pooled, "enc2", 16)
    up = b.op("image.resize2d", (deep,), "up_resize", size=(16, 16), method="linear", half_pixel_centers=True)
    w = b.weights("up_conv.w", (8, 3, 3, 16), 9 * 16)
    upc = b.op("nn.conv2d_transpose", (deep, w, b.const("up_conv.b", b.rng.standard_normal(8) * 0.1)), "up_conv",
               strides=(2, 2), padding=(0, 0, 1, 1), output_shape=(1, 16, 16, 8))
    cat = b.op("concatenate", (skip, up, upc), "cat", axis=3)
    return b.graph(_pointwise(b, b.conv(cat, "dec", 8), "mask", 2))


def maxout_select() -> object:
    """maximum / minimum of two branches (maxout, a clamp by constants), a comparison and a select:
    x[1,64] ─┬ dense 32 ─► a ─┬ maximum ─ minimum 2.5 ─► m ─ greater 0.5 ─► keep (bool) ─┐
             └ dense 32 ─► b ─┘                        └──────────────────────────── where(keep, m, b) ─ dense ─►
    logits, argmax ─► label (int32)"""
    b = Builder(25)
    x = b.input("x", (1, 64))
    a, c = b.dense(x, "a", 32), b.dense(x, "b", 32)
    m = b.op("minimum", (b.op("maximum", (a, c), "maxout"), b.const("ceiling", [2.5])), "clamped")
    keep = b.op("greater", (m, b.const("half", [0.5])), "keep")
    picked = b.op("where", (keep, m, c), "picked")
    logits = b.dense(picked, "logits", 10)
    label = b.op("argmax", (logits,), "label", axis=1)
    b.tensors[label] = Tensor(label, TensorType((1,), DType.INT32))  # argmax's infer keeps the output's dtype
    return b.graph(logits, label)


BLOCKS = {
    "mobilenet_v3": (mobilenet_v3, 1.0),
    "efficientnet": (efficientnet, 1.0),
    "shufflenet_v2": (shufflenet_v2, 1.0),
    "unet": (unet, 1.0),
    "maxout_select": (maxout_select, 1.0),
}



def float_islands() -> object:
    """A keyword model whose middle has no integer kernel (layer_norm, gelu, a GRU, exp, log, erf, negative):
    x[1,49,10] ─ dense 16 ─ reshape [1,49,16] ─ layer_norm ─ gelu ─ gru 16 ─► seq, last ─ negative ─ exp ─ log ─ erf
    ─ dense 12 ─► logits"""
    b = Builder(26)
    x = b.input("x", (1, 49, 10))
    h = b.op("reshape", (b.dense(x, "frames", 16),), "frames3", newshape=(1, 49, 16))
    norm = b.op("nn.layer_norm", (h, b.const("ln.g", 1 + 0.1 * b.rng.standard_normal(16)),
                                  b.const("ln.b", 0.1 * b.rng.standard_normal(16))), "norm", axis=-1)
    g = b.op("nn.gelu", (norm,), "gelu")
    weights = [b.weights("gru.w", (48, 16), 16), b.weights("gru.r", (48, 16), 16),
               b.const("gru.wb", 0.1 * b.rng.standard_normal(48)), b.const("gru.rb", 0.1 * b.rng.standard_normal(48)),
               b.const("gru.h0", np.zeros((1, 16)))]
    node = Node("nn.gru", (g, *weights), ("seq", "last"), {}, "gru")
    for name in node.outputs:
        b.tensors[name] = Tensor(name, TensorType((1,), DType.FLOAT32))
    probe = Graph(b.tensors, (*b.nodes, node), tuple(b.inputs), node.outputs)
    for name, ttype in zip(node.outputs, get_op("nn.gru").infer(probe, node)):
        b.tensors[name] = Tensor(name, ttype)
    b.nodes.append(node)
    t = b.op("log", (b.op("exp", (b.op("negative", ("last",), "neg"),), "exp"),), "log")
    return b.graph(b.dense(b.op("erf", (t,), "erf"), "logits", 12))
