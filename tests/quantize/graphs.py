"""Small named float graphs for the quantization tests, built directly as IR with seeded weights.

Each shape is drawn in its builder's docstring. `SHAPES` maps a name to (builder, input scale): calibration
and test inputs are standard normal times that scale.
"""

from __future__ import annotations

import numpy as np

from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.registry import get_op
from micro_relay.ir.types import DType, TensorType
from micro_relay.ir.verify import verify


class Builder:
    """Adds float tensors and nodes; output shapes come from each op's own type inference."""

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)
        self.tensors: dict[str, Tensor] = {}
        self.nodes: list[Node] = []
        self.inputs: list[str] = []

    def input(self, name: str, shape) -> str:
        self.tensors[name] = Tensor(name, TensorType(tuple(shape), DType.FLOAT32))
        self.inputs.append(name)
        return name

    def const(self, name: str, data) -> str:
        data = np.asarray(data, dtype=np.float32)
        self.tensors[name] = Tensor(name, TensorType(data.shape, DType.FLOAT32), data)
        return name

    def weights(self, name: str, shape, fan_in: int) -> str:
        return self.const(name, self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in))

    def op(self, op: str, inputs, out: str, **attrs) -> str:
        node = Node(op, tuple(inputs), (out,), attrs, out)
        self.tensors[out] = Tensor(out, TensorType((1,), DType.FLOAT32))
        probe = Graph(self.tensors, (*self.nodes, node), tuple(self.inputs), (out,))
        (ttype,) = get_op(op).infer(probe, node)
        self.tensors[out] = Tensor(out, ttype)
        self.nodes.append(node)
        return out

    def conv(self, x: str, out: str, channels: int, kernel=3, stride=1, padding=1, activation="relu") -> str:
        c = self.tensors[x].type.shape[-1]
        w = self.weights(f"{out}.w", (channels, kernel, kernel, c), kernel * kernel * c)
        b = self.const(f"{out}.b", self.rng.standard_normal(channels) * 0.1)
        return self.op("nn.conv2d", (x, w, b), out, strides=(stride, stride), padding=(padding,) * 4,
                       activation=activation)

    def dense(self, x: str, out: str, units: int, activation="none") -> str:
        t = self.tensors[x].type
        depth = t.shape[-1]
        w = self.weights(f"{out}.w", (units, depth), depth)
        b = self.const(f"{out}.b", self.rng.standard_normal(units) * 0.1)
        rows = t.size // depth
        return self.op("nn.dense", (x, w, b), out, activation=activation, output_shape=(rows, units))

    def graph(self, *outputs: str) -> Graph:
        return verify(Graph(self.tensors, tuple(self.nodes), tuple(self.inputs), outputs))


def linear() -> Graph:
    """x[1,16] ─ dense relu ─ dense ─ softmax ─► probs"""
    b = Builder(1)
    x = b.input("x", (1, 16))
    h = b.dense(x, "hidden", 24, activation="relu")
    logits = b.dense(h, "logits", 10)
    return b.graph(b.op("nn.softmax", (logits,), "probs"))


def conv_chain() -> Graph:
    """x[1,8,8,3] ─ conv relu ─ depthwise relu6 ─ pad ─ max_pool ─ reshape ─ dense ─► logits"""
    b = Builder(2)
    x = b.input("x", (1, 8, 8, 3))
    c = b.conv(x, "conv", 8)
    w = b.weights("dw.w", (1, 3, 3, 8), 9)
    d = b.op("nn.depthwise_conv2d", (c, w, b.const("dw.b", np.zeros(8))), "dw",
             padding=(1, 1, 1, 1), activation="relu6")
    p = b.op("nn.pad", (d,), "pad", pad_width=(0, 0, 1, 1, 1, 1, 0, 0))
    m = b.op("nn.max_pool2d", (p,), "pool", pool_size=(2, 2), strides=(2, 2))
    r = b.op("reshape", (m,), "flat", newshape=(1, 200))
    return b.graph(b.dense(r, "logits", 5))


def residual() -> Graph:
    """x ─ conv relu ─► a ─ conv ─► b ─┐
                       └────────────── add relu ─ avg_pool ─► out"""
    b = Builder(3)
    x = b.input("x", (1, 8, 8, 4))
    a = b.conv(x, "a", 8)
    c = b.conv(a, "b", 8, activation="none")
    s = b.op("add", (a, c), "sum", activation="relu")
    return b.graph(b.op("nn.avg_pool2d", (s,), "out", pool_size=(8, 8), strides=(8, 8)))


def fan_out_concat() -> Graph:
    """x ─┬ conv relu (k=1) ─► left ──┐
          └ conv (k=3) ─ multiply 4 ─► right4 ─ concatenate ─ transpose NCHW ─ mean ─► out"""
    b = Builder(4)
    x = b.input("x", (1, 6, 6, 3))
    left = b.conv(x, "left", 4, kernel=1, padding=0)
    right = b.conv(x, "right", 4, activation="none")
    scaled = b.op("multiply", (right, b.const("four", [4.0])), "right4")
    cat = b.op("concatenate", (left, scaled), "cat", axis=3)
    nchw = b.op("transpose", (cat,), "nchw", axes=(0, 3, 1, 2))
    return b.graph(b.op("mean", (nchw,), "out", axis=(2, 3), keepdims=False))


def activations() -> Graph:
    """x ─ dense ─► h ─┬ sigmoid ─► gate
                      ├ tanh ─► squash
                      └ subtract(h, c) ─ leaky_relu ─ strided_slice ─► tail"""
    b = Builder(5)
    x = b.input("x", (1, 12))
    h = b.dense(x, "h", 8)
    gate = b.op("sigmoid", (h,), "gate")
    squash = b.op("tanh", (h,), "squash")
    diff = b.op("subtract", (h, b.const("c", np.linspace(-1, 1, 8))), "diff")
    leaky = b.op("nn.leaky_relu", (diff,), "leaky", alpha=0.1)
    tail = b.op("strided_slice", (leaky,), "tail", begin=(0, 2), end=(1, 8), strides=(1, 2), newshape=(1, 3))
    return b.graph(gate, squash, tail)


def decoder() -> Graph:
    """x[1,4,4,4] ─ conv2d_transpose (stride 2) ─ relu ─ relu6 ─ conv relu_n1_to_1 ─► out"""
    b = Builder(6)
    x = b.input("x", (1, 4, 4, 4))
    w = b.weights("up.w", (6, 3, 3, 4), 9 * 4)
    up = b.op("nn.conv2d_transpose", (x, w, b.const("up.b", np.linspace(-0.2, 0.2, 6))), "up", strides=(2, 2),
              padding=(0, 0, 1, 1), output_shape=(1, 8, 8, 6))
    r = b.op("nn.relu", (up,), "relu")
    r6 = b.op("nn.relu6", (r,), "relu6")
    return b.graph(b.conv(r6, "out", 3, activation="relu_n1_to_1"))


def two_convs() -> Graph:
    """x[1,8,8,3] ─ conv ─ relu ─ conv ─ reshape ─ dense ─► logits

    The int16 tests' graph: conv1 has no fused activation, so its signed output spans the whole range, and
    its neighbours are a relu and the float input; conv2 sits between int8 layers."""
    b = Builder(7)
    x = b.input("x", (1, 8, 8, 3))
    c1 = b.conv(x, "conv1", 8, activation="none")
    r = b.op("nn.relu", (c1,), "relu")
    c2 = b.conv(r, "conv2", 8, activation="none")
    flat = b.op("reshape", (c2,), "flat", newshape=(1, 512))
    return b.graph(b.dense(flat, "logits", 10))


SHAPES = {
    "linear": (linear, 1.0),
    "conv_chain": (conv_chain, 1.0),
    "residual": (residual, 1.0),
    "fan_out_concat": (fan_out_concat, 1.0),
    "activations": (activations, 2.0),
    "decoder": (decoder, 3.0),
    "two_convs": (two_convs, 1.0),
}


def samples(graph: Graph, count: int, seed: int, scale: float = 1.0) -> dict[str, np.ndarray]:
    """Standard-normal inputs times `scale`, keyed by input name, shape (count, *input_shape)."""
    rng = np.random.default_rng(seed)
    return {n: (rng.standard_normal((count, *graph.type_of(n).shape)) * scale).astype(np.float32)
            for n in graph.inputs}
