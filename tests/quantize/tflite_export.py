"""A quantized IR graph written as a TFLite model (with Micro Relay's TFLite writer), so TFLite Micro can run
the very integers the quantizer chose: the external oracle for the quantized graph's semantics.

Covers the ops the quantization tests' graphs use. Each IR op maps to one TFLite operator with the same
quantized tensors; the IR's explicit conv padding must be TFLite's SAME or VALID (anything else raises).
"""

from __future__ import annotations

import numpy as np

from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.ir.graph import Graph, Node

ACTIVATIONS = {"none": "NONE", "relu": "RELU", "relu6": "RELU6", "relu_n1_to_1": "RELU_N1_TO_1"}
SIMPLE = {"qnn.quantize": "QUANTIZE", "qnn.dequantize": "DEQUANTIZE", "sigmoid": "LOGISTIC", "tanh": "TANH",
          "nn.relu": "RELU", "nn.relu6": "RELU6", "nn.hard_swish": "HARD_SWISH", "maximum": "MAXIMUM",
          "minimum": "MINIMUM", "where": "SELECT_V2", "abs": "ABS", "nn.softmax": "SOFTMAX", "rsqrt": "RSQRT",
          "nn.elu": "ELU", "nn.l2_normalize": "L2_NORMALIZATION", "squared_difference": "SQUARED_DIFFERENCE",
          "divide": "DIV", "nn.prelu": "PRELU", "equal": "EQUAL", "not_equal": "NOT_EQUAL", "less": "LESS",
          "less_equal": "LESS_EQUAL", "greater": "GREATER", "greater_equal": "GREATER_EQUAL", "gather_nd": "GATHER_ND"}
PAIRS = {"nn.mirror_pad": ("MIRROR_PAD", "pad_width"), "nn.space_to_batch_nd": ("SPACE_TO_BATCH_ND", "paddings"),
         "nn.batch_to_space_nd": ("BATCH_TO_SPACE_ND", "crops")}


def _same_or_valid(in_hw, out_hw, kernel, strides, padding, transposed=False) -> str:
    if tuple(padding) == (0, 0, 0, 0) and not transposed:
        return "VALID"
    expected = []
    for size, out, k, s in zip(in_hw, out_hw, kernel, strides):
        total = max((size - 1) * s + k - out, 0) if transposed else max((out - 1) * s + k - size, 0)
        expected.append((total // 2, total - total // 2))
    (top, bottom), (left, right) = expected
    if tuple(padding) != (top, left, bottom, right):
        raise ValueError(f"padding {padding} is neither SAME {(top, left, bottom, right)} nor VALID")
    return "SAME"


class _Exporter:
    def __init__(self, graph: Graph):
        self.g, self.b, self.extra = graph, TFLiteBuilder(), 0

    def tensor(self, name: str) -> str:
        t = self.g.tensors[name]
        q = t.type.quant
        kwargs = {}
        if q is not None:
            per_channel = q.axis is not None and len(q.scales) > 1
            kwargs = {"scale": list(q.scales) if per_channel else q.scales[0],
                      "zero_point": list(q.zero_points) if per_channel else q.zero_points[0],
                      "axis": q.axis if per_channel else None}
        return self.b.tensor(name, t.type.shape, t.type.dtype.numpy, data=t.data, **kwargs)

    def ints(self, values) -> str:
        self.extra += 1
        values = np.asarray(values, np.int32)
        return self.b.tensor(f"const{self.extra}", values.shape, np.int32, data=values)

    def node(self, n: Node) -> None:
        g, a = self.g, n.attrs
        ins, outs = list(n.inputs), list(n.outputs)
        shape = g.type_of(ins[0]).shape
        if n.op in SIMPLE:
            self.b.op(SIMPLE[n.op], ins, outs)
        elif n.op in ("nn.conv2d", "nn.depthwise_conv2d"):
            kernel = g.type_of(ins[1]).shape[1:3]
            padding = _same_or_valid(shape[1:3], g.type_of(outs[0]).shape[1:3], kernel, a.get("strides", (1, 1)),
                                     a.get("padding", (0, 0, 0, 0)))
            opts = {"padding": padding, "stride": tuple(a.get("strides", (1, 1))),
                    "activation": ACTIVATIONS[a.get("activation", "none")]}
            if n.op == "nn.conv2d":
                self.b.op("CONV_2D", ins, outs, **opts)
            else:
                self.b.op("DEPTHWISE_CONV_2D", ins, outs, depth_multiplier=a.get("depth_multiplier", 1), **opts)
        elif n.op == "nn.conv2d_transpose":
            out_shape = g.type_of(outs[0]).shape
            kernel = g.type_of(ins[1]).shape[1:3]
            padding = _same_or_valid(shape[1:3], out_shape[1:3], kernel, a["strides"], a["padding"], transposed=True)
            self.b.op("TRANSPOSE_CONV", [self.ints(out_shape), ins[1], ins[0], ins[2]], outs, padding=padding,
                      stride=tuple(a["strides"]), activation=ACTIVATIONS[a.get("activation", "none")])
        elif n.op == "nn.dense":
            self.b.op("FULLY_CONNECTED", ins, outs, activation=ACTIVATIONS[a.get("activation", "none")])
        elif n.op in ("add", "multiply", "subtract"):
            op = {"add": "ADD", "multiply": "MUL", "subtract": "SUB"}[n.op]
            self.b.op(op, ins, outs, activation=ACTIVATIONS[a.get("activation", "none")])
        elif n.op in ("mean", "sum", "max", "min"):
            op = {"mean": "MEAN", "sum": "SUM", "max": "REDUCE_MAX", "min": "REDUCE_MIN"}[n.op]
            self.b.op(op, [ins[0], self.ints(a["axis"])], outs, keep_dims=bool(a.get("keepdims", False)))
        elif n.op in ("argmax", "argmin"):
            self.b.op("ARG_MAX" if n.op == "argmax" else "ARG_MIN", [ins[0], self.ints([a["axis"]])], outs,
                      output_type=g.type_of(outs[0]).dtype.numpy)
        elif n.op == "reshape":
            self.b.op("RESHAPE", [ins[0], self.ints(g.type_of(outs[0]).shape)], outs)
        elif n.op == "transpose":
            self.b.op("TRANSPOSE", [ins[0], self.ints(a["axes"])], outs)
        elif n.op == "strided_slice":
            if tuple(a["newshape"]) != g.type_of(outs[0]).shape or len(a["begin"]) != len(shape):
                raise ValueError("strided_slice with shrunk axes is not exported")
            self.b.op("STRIDED_SLICE", [ins[0], self.ints(a["begin"]), self.ints(a["end"]), self.ints(a["strides"])],
                      outs)
        elif n.op == "nn.batch_matmul":
            self.b.op("BATCH_MATMUL", ins, outs, adj_x=bool(a.get("adj_x", False)), adj_y=bool(a.get("adj_y", False)))
        elif n.op == "take":
            self.b.op("GATHER", ins, outs, axis=int(a.get("axis", 0)), batch_dims=int(a.get("batch_dims", 0)))
        elif n.op == "tile":
            self.b.op("TILE", [ins[0], self.ints(a["reps"])], outs)
        elif n.op == "full":
            self.b.op("FILL", [self.ints(a["shape"]), ins[0]], outs)
        elif n.op == "broadcast_to":
            self.b.op("BROADCAST_TO", [ins[0], self.ints(a["shape"])], outs)
        elif n.op in PAIRS:
            op, key = PAIRS[n.op]
            pairs = self.ints(np.reshape(a[key], (-1, 2)))
            extra = {"mode": a.get("mode", "REFLECT")} if op == "MIRROR_PAD" else {}
            block = [self.ints(a["block_shape"])] if "block_shape" in a else []
            self.b.op(op, [ins[0], *block, pairs], outs, **extra)
        elif n.op in ("nn.space_to_depth", "nn.depth_to_space"):
            self.b.op(n.op.removeprefix("nn.").upper(), ins, outs, block_size=int(a["block_size"]))
        elif n.op == "concatenate":
            self.b.op("CONCATENATION", ins, outs, axis=int(a["axis"]))
        elif n.op == "image.resize2d":
            op = "RESIZE_BILINEAR" if a.get("method", "linear") == "linear" else "RESIZE_NEAREST_NEIGHBOR"
            self.b.op(op, [ins[0], self.ints(a["size"])], outs, align_corners=bool(a.get("align_corners", False)),
                      half_pixel_centers=bool(a.get("half_pixel_centers", False)))
        elif n.op in ("nn.max_pool2d", "nn.avg_pool2d"):
            if tuple(a.get("padding", (0, 0, 0, 0))) != (0, 0, 0, 0):
                raise ValueError("padded pooling is not exported")
            op = "MAX_POOL_2D" if n.op == "nn.max_pool2d" else "AVERAGE_POOL_2D"
            self.b.op(op, ins, outs, padding="VALID", stride=tuple(a["strides"]), filter_size=tuple(a["pool_size"]))
        else:
            raise ValueError(f"no TFLite export for {n.op}")

    def build(self) -> bytes:
        for name in self.g.tensors:
            self.tensor(name)
        for n in self.g.nodes:
            self.node(n)
        return self.b.inputs(*self.g.inputs).outputs(*self.g.outputs).build()


def to_tflite(graph: Graph) -> bytes:
    """The quantized graph as TFLite model bytes (every tensor keeps its name, type and quantization)."""
    return _Exporter(graph).build()
