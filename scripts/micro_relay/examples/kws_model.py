"""A DS-CNN-shaped keyword-spotting network with seeded weights, quantized to int8 the TFLite way.

The layer shapes of the MLPerf Tiny keyword-spotting reference model (DS-CNN small), weights drawn from a
seeded generator instead of trained, so the model is our own and the same bytes come out every time:

    input   int8[1, 49, 10, 1]   (49 frames x 10 MFCC features)
    CONV_2D 64 filters 10x4, stride 2, SAME, ReLU            -> [1, 25, 5, 64]
    4 x ( DEPTHWISE_CONV_2D 3x3, SAME, ReLU                    -> [1, 25, 5, 64]
          CONV_2D 64 filters 1x1, ReLU )                       -> [1, 25, 5, 64]
    AVERAGE_POOL_2D 25x5                                      -> [1, 1, 1, 64]
    RESHAPE                                                   -> [1, 64]
    FULLY_CONNECTED 12                                        -> [1, 12]
    SOFTMAX                                                   -> [1, 12] (scale 1/256, zero point -128)

Quantization follows TFLite's post-training scheme: activation ranges observed by running the float
network (numpy, below) on seeded calibration inputs, int8 per-channel symmetric weights for the
convolutions, per-tensor for the dense layer, int32 biases with scale input_scale x weight_scale.
"""

from __future__ import annotations

import numpy as np

from ..frontend.tflite.writer import TFLiteBuilder
from .quantization import int8_affine

INPUT_SHAPE = (1, 49, 10, 1)
CHANNELS = 64
BLOCKS = 4
CLASSES = 12
FIRST_KERNEL = (10, 4)
FIRST_STRIDE = 2
INPUT_RANGE = (-1.0, 1.0)


def _same_pads(size: int, kernel: int, stride: int) -> tuple[int, int, int]:
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return out, total // 2, total - total // 2


def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int, depthwise: bool) -> np.ndarray:
    """Float NHWC convolution, SAME padding. w: [out, kh, kw, in] (conv) or [1, kh, kw, c] (depthwise)."""
    _, h, wd, c = x.shape
    kh, kw = w.shape[1], w.shape[2]
    oh, top, bottom = _same_pads(h, kh, stride)
    ow, left, right = _same_pads(wd, kw, stride)
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    out_c = c if depthwise else w.shape[0]
    y = np.zeros((x.shape[0], oh, ow, out_c))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i:i + stride * oh:stride, j:j + stride * ow:stride, :]
            y += patch * w[0, i, j, :] if depthwise else patch @ w[:, i, j, :].T
    return y + b


def _layers(rng: np.random.Generator, channels: int, blocks: int, classes: int) -> list[dict]:
    def he(shape, fan_in):
        return rng.normal(0.0, np.sqrt(2.0 / fan_in), shape)

    layers = [dict(kind="conv", w=he((channels, *FIRST_KERNEL, 1), FIRST_KERNEL[0] * FIRST_KERNEL[1]),
                   b=rng.normal(0.0, 0.1, channels), stride=FIRST_STRIDE)]
    for _ in range(blocks):
        layers.append(dict(kind="depthwise", w=he((1, 3, 3, channels), 9), b=rng.normal(0.0, 0.1, channels), stride=1))
        layers.append(dict(kind="conv", w=he((channels, 1, 1, channels), channels),
                           b=rng.normal(0.0, 0.1, channels), stride=1))
    layers.append(dict(kind="dense", w=he((classes, channels), channels), b=rng.normal(0.0, 0.1, classes)))
    return layers


def forward(layers: list[dict], x: np.ndarray) -> list[np.ndarray]:
    """Float activations after each layer: convs (ReLU), then pool, then logits."""
    acts = []
    h = x
    for layer in layers[:-1]:
        h = np.maximum(_conv(h, layer["w"], layer["b"], layer["stride"], layer["kind"] == "depthwise"), 0.0)
        acts.append(h)
    pooled = h.mean(axis=(1, 2), keepdims=True)
    acts.append(pooled)
    dense = layers[-1]
    acts.append(pooled.reshape(pooled.shape[0], -1) @ dense["w"].T + dense["b"])
    return acts


def build_kws_model(seed: int = 7, channels: int = CHANNELS, blocks: int = BLOCKS, classes: int = CLASSES) -> bytes:
    """The int8 .tflite bytes of the DS-CNN-shaped network (narrower, shallower or with fewer classes: the
    small wake-word gate of samples/cascade)."""
    rng = np.random.default_rng(seed)
    layers = _layers(rng, channels, blocks, classes)
    calibration = rng.uniform(*INPUT_RANGE, (16, *INPUT_SHAPE[1:]))
    ranges = [(float(a.min()), float(a.max())) for a in forward(layers, calibration)]

    b = TFLiteBuilder()
    in_scale, in_zp = int8_affine(*INPUT_RANGE)
    current = b.tensor("input", INPUT_SHAPE, "int8", scale=in_scale, zero_point=in_zp)
    first = current
    shape = INPUT_SHAPE
    for index, layer in enumerate(layers[:-1]):
        w = layer["w"]
        depthwise = layer["kind"] == "depthwise"
        axis = 3 if depthwise else 0
        reduce_axes = tuple(a for a in range(4) if a != axis)
        w_scales = np.maximum(np.abs(w).max(axis=reduce_axes), 1e-8) / 127.0
        w_scales = w_scales.astype(np.float32).astype(np.float64)
        expand = w_scales.reshape((1, 1, 1, -1) if depthwise else (-1, 1, 1, 1))
        w_q = np.clip(np.round(w / expand), -127, 127).astype(np.int8)
        b_scales = in_scale * w_scales
        b_q = np.round(layer["b"] / b_scales).astype(np.int32)
        name = f"block{(index + 1) // 2}/{'dw' if depthwise else 'pw'}" if index else "conv0"
        weight = b.tensor(f"{name}/weights", w.shape, "int8", data=w_q, scale=list(w_scales), zero_point=0, axis=axis)
        bias = b.tensor(f"{name}/bias", (w.shape[axis],), "int32", data=b_q, scale=list(b_scales), zero_point=0,
                        axis=0)
        stride = layer["stride"]
        shape = (1, -(-shape[1] // stride), -(-shape[2] // stride), channels)
        out_scale, out_zp = int8_affine(*ranges[index])
        out = b.tensor(f"{name}/out", shape, "int8", scale=out_scale, zero_point=out_zp)
        if depthwise:
            b.op("DEPTHWISE_CONV_2D", [current, weight, bias], [out], padding="SAME", stride=stride,
                 depth_multiplier=1, activation="RELU")
        else:
            b.op("CONV_2D", [current, weight, bias], [out], padding="SAME", stride=stride, activation="RELU")
        current, in_scale = out, out_scale
        in_zp = out_zp

    pooled = b.tensor("pool/out", (1, 1, 1, channels), "int8", scale=in_scale, zero_point=in_zp)
    b.op("AVERAGE_POOL_2D", [current], [pooled], padding="VALID", filter_size=shape[1:3], stride=1)
    flat = b.tensor("flatten/out", (1, channels), "int8", scale=in_scale, zero_point=in_zp)
    shape_tensor = b.tensor("flatten/shape", (2,), "int32", data=np.array([1, channels], dtype=np.int32))
    b.op("RESHAPE", [pooled, shape_tensor], [flat], new_shape=[1, channels])

    dense = layers[-1]
    w_scale = float(np.float32(np.abs(dense["w"]).max() / 127.0))
    w_q = np.clip(np.round(dense["w"] / w_scale), -127, 127).astype(np.int8)
    b_q = np.round(dense["b"] / (in_scale * w_scale)).astype(np.int32)
    weight = b.tensor("dense/weights", dense["w"].shape, "int8", data=w_q, scale=w_scale, zero_point=0)
    bias = b.tensor("dense/bias", (classes,), "int32", data=b_q, scale=in_scale * w_scale, zero_point=0)
    logit_scale, logit_zp = int8_affine(*ranges[-1])
    logits = b.tensor("dense/out", (1, classes), "int8", scale=logit_scale, zero_point=logit_zp)
    b.op("FULLY_CONNECTED", [flat, weight, bias], [logits])
    probs = b.tensor("probabilities", (1, classes), "int8", scale=1.0 / 256.0, zero_point=-128)
    b.op("SOFTMAX", [logits], [probs], beta=1.0)
    return b.inputs(first).outputs(probs).build()


# The wake-word gate of samples/cascade: the same shape, 8 channels, one block, two classes (0 no, 1 wake).
# The seed is one for which the two fixed test inputs (write_model.kws_inputs) fall on either side of the
# gate, so the sample runs both of its paths.
WAKE_SEED, WAKE_CHANNELS, WAKE_BLOCKS = 34, 8, 1


def build_wake_model() -> bytes:
    return build_kws_model(seed=WAKE_SEED, channels=WAKE_CHANNELS, blocks=WAKE_BLOCKS, classes=2)
