"""TFLite models with an explicit PAD in front of a convolution or a pool, as TensorFlow writes them for a
stride-2 layer (PAD (0, 1) then VALID) and as converters write an asymmetric or oversized border, for the
padding fold (passes/fold_padding.py). Written with Micro Relay's own TFLite writer; TFLite Micro runs them as
written, PAD and all, and is the oracle for the folded C."""

from __future__ import annotations

import math

import numpy as np

from micro_relay.frontend.tflite.writer import TFLiteBuilder

from .tflite_models import INT_LIMITS, _bias, _conv_out_quant, _quant, _weight_scales, _weights

CONSUMERS = ("CONV_2D", "DEPTHWISE_CONV_2D", "MAX_POOL_2D", "AVERAGE_POOL_2D")


def _pad(b: TFLiteBuilder, x: str, shape, hw_pads, dtype: str, q: dict, constant, name: str):
    """PAD (or PADV2 with `constant`, in the tensor's own quantization) of height and width; returns the padded
    tensor and its shape."""
    (top, bottom), (left, right) = hw_pads
    n, h, w, c = shape
    padded_shape = (n, h + top + bottom, w + left + right, c)
    pads = b.tensor(f"{name}_paddings", (4, 2), "int32", data=np.asarray(((0, 0), (top, bottom), (left, right),
                                                                            (0, 0))))
    y = b.tensor(f"{name}_padded", padded_shape, dtype, **q)
    if constant is None:
        b.op("PAD", [x, pads], [y])
    else:
        v = b.tensor(f"{name}_constant", (1,), dtype, data=[constant], **q)
        b.op("PADV2", [x, pads, v], [y])
    return y, padded_shape


def padded_model(consumer="CONV_2D", dtype="int8", input_shape=(1, 9, 9, 4), hw_pads=((0, 1), (0, 1)),
                 kernel=(3, 3), stride=(2, 2), padding="VALID", out_channels=6, constant=None, in_zp=-7,
                 activation="NONE", seed=0) -> bytes:
    """PAD (or PADV2 with `constant`) -> one consumer. Convolutions use per-channel int8 weights and a bias."""
    rng = np.random.default_rng(seed)
    in_scale = 0.05
    q = _quant(dtype, in_scale, in_zp)
    b = TFLiteBuilder()
    x = b.tensor("input", input_shape, dtype, **q)
    padded, (n, h, w, c) = _pad(b, x, input_shape, hw_pads, dtype, q, constant, "pad")
    kh, kw = kernel
    same = padding == "SAME"
    oh = (h + stride[0] - 1) // stride[0] if same else (h - kh) // stride[0] + 1
    ow = (w + stride[1] - 1) // stride[1] if same else (w - kw) // stride[1] + 1
    if consumer in ("MAX_POOL_2D", "AVERAGE_POOL_2D"):
        y = b.tensor("output", (n, oh, ow, c), dtype, **q)
        b.op(consumer, [padded], [y], filter_size=kernel, stride=stride, padding=padding, activation=activation)
        return b.inputs(x).outputs(y).build()
    depthwise = consumer == "DEPTHWISE_CONV_2D"
    channels = c if depthwise else out_channels
    terms = kh * kw * (1 if depthwise else c)
    scales = _weight_scales(rng, channels, True)
    f = _weights(b, rng, dtype, (1, kh, kw, channels) if depthwise else (channels, kh, kw, c), scales,
                 3 if depthwise else 0, terms)
    bias = _bias(b, rng, dtype, "float32" if dtype == "float32" else "int32", channels, terms)
    y = b.tensor("output", (n, oh, ow, channels), dtype,
                 **_conv_out_quant(dtype, in_scale, scales, terms, 3.0, 3))
    extra = {"depth_multiplier": 1} if depthwise else {}
    b.op(consumer, [padded, f, bias], [y], stride=stride, padding=padding, activation=activation, **extra)
    return b.inputs(x).outputs(y).build()


class _Net:
    """A small int8 network under construction: each layer adds its tensors with unique names."""

    def __init__(self, shape, seed):
        self.b = TFLiteBuilder()
        self.rng = np.random.default_rng(seed)
        self.count = 0
        self.scale = 0.05
        self.x = self.b.tensor("input", shape, "int8", scale=self.scale, zero_point=-128)
        self.input = self.x
        self.shape = tuple(shape)
        self.zp = -128

    def _name(self, what):
        self.count += 1
        return f"{what}{self.count}"

    def pad_bottom_right(self):
        q = {"scale": self.scale, "zero_point": self.zp}
        self.x, self.shape = _pad(self.b, self.x, self.shape, ((0, 1), (0, 1)), "int8", q, None, self._name("pad"))

    def conv(self, channels, kernel=1, stride=1, padding="SAME", depthwise=False, activation="RELU6"):
        """A convolution at its input's scale (zero point -128 after RELU6, else 0)."""
        b, rng, name = self.b, self.rng, self._name("dw" if depthwise else "conv")
        n, h, w, c = self.shape
        channels = c if depthwise else channels
        terms = kernel * kernel * (1 if depthwise else c)
        # weight scales that keep a typical sum at a third of the int8 range at the input's own scale, so that
        # scales stay put however deep the network is
        scales = [INT_LIMITS["int8"][1] / (74 * 73 * math.sqrt(terms) * 3)] * channels
        shape = (1, kernel, kernel, channels) if depthwise else (channels, kernel, kernel, c)
        f = b.tensor(f"{name}_filter", shape, "int8", data=rng.integers(-127, 128, shape), scale=scales,
                     zero_point=0, axis=3 if depthwise else 0)
        bias = b.tensor(f"{name}_bias", (channels,), "int32", data=rng.integers(-3000, 3001, channels),
                        scale=[self.scale * s for s in scales], zero_point=0, axis=0)
        oh = (h + stride - 1) // stride if padding == "SAME" else (h - kernel) // stride + 1
        ow = (w + stride - 1) // stride if padding == "SAME" else (w - kernel) // stride + 1
        out_scale = self.scale
        zp = -128 if activation == "RELU6" else 0
        y = b.tensor(f"{name}_out", (n, oh, ow, channels), "int8", scale=out_scale, zero_point=zp)
        extra = {"depth_multiplier": 1} if depthwise else {}
        b.op("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [self.x, f, bias], [y], stride=(stride, stride),
             padding=padding, activation=activation, **extra)
        self.x, self.shape, self.scale, self.zp = y, (n, oh, ow, channels), out_scale, zp
        return y

    def inverted_residual(self, expand, out_channels, stride):
        """1x1 expand (none for expand 1), 3x3 depthwise (stride 2 as TensorFlow writes it: PAD (0, 1), then
        VALID), 1x1 project, and the residual ADD when the block keeps its shape."""
        skip, skip_shape, skip_q = self.x, self.shape, (self.scale, self.zp)
        if expand != 1:
            self.conv(self.shape[3] * expand)
        if stride == 2:
            self.pad_bottom_right()
            self.conv(0, kernel=3, stride=2, padding="VALID", depthwise=True)
        else:
            self.conv(0, kernel=3, depthwise=True)
        self.conv(out_channels, activation="NONE")
        if stride == 1 and skip_shape == self.shape:
            self.add(skip, skip_q)

    def add(self, other, other_q):
        """ADD of the current tensor and `other` (its own quantization), to a scale that holds both."""
        scale = 1.5 * max(self.scale, other_q[0])
        y = self.b.tensor(self._name("add"), self.shape, "int8", scale=scale, zero_point=0)
        self.b.op("ADD", [self.x, other], [y], activation="NONE")
        self.x, self.scale, self.zp = y, scale, 0


def mobilenet_v2_head(size=48, seed=0) -> bytes:
    """The first stages of a MobileNetV2 (width 1.0) at a `size` x `size` RGB input, as TensorFlow converts them:
    every stride-2 layer is PAD (0, 1) then a VALID convolution. Stem conv 3x3/2 to 32, a depthwise-separable
    block to 16, inverted residuals (expand 6) to 24 (stride 2) and 32 (stride 2)."""
    net = _Net((1, size, size, 3), seed)
    net.pad_bottom_right()
    net.conv(32, kernel=3, stride=2, padding="VALID")
    net.conv(0, kernel=3, depthwise=True)
    net.conv(16, activation="NONE")
    net.inverted_residual(6, 24, 2)
    net.inverted_residual(6, 32, 2)
    return net.b.inputs(net.input).outputs(net.x).build()


MOBILENET_V2_STAGES = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1))  # (expand, channels, blocks, first stride), width 1.0


def mobilenet_v2(size=224, seed=0) -> bytes:
    """MobileNetV2 1.0 at `size` x `size` RGB, int8 with seeded weights, as TensorFlow converts it (every stride-2
    layer a PAD (0, 1) then VALID): stem conv 3x3/2 to 32, the seven stages of inverted residuals (residual ADDs
    where the shape is kept), conv 1x1 to 1280, global average pool."""
    net = _Net((1, size, size, 3), seed)
    net.pad_bottom_right()
    net.conv(32, kernel=3, stride=2, padding="VALID")
    for expand, channels, blocks, stride in MOBILENET_V2_STAGES:
        for k in range(blocks):
            net.inverted_residual(expand, channels, stride if k == 0 else 1)
    net.conv(1280)
    n, h, w, c = net.shape
    y = net.b.tensor("pooled", (n, 1, 1, c), "int8", scale=net.scale, zero_point=net.zp)
    net.b.op("AVERAGE_POOL_2D", [net.x], [y], filter_size=(h, w), stride=(1, 1), padding="VALID", activation="NONE")
    return net.b.inputs(net.input).outputs(y).build()
