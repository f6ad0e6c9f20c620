"""A sine-approximation network, trained and quantized here: y ≈ sin(x) for x in [0, 2π].

1 → 16 → 16 → 1 fully connected with ReLU, the shape of TFLite Micro's hello_world. Trained full-batch
with Adam in numpy (seeded: the same weights every time), then quantized post-training the TFLite way:
int8 activations with asymmetric ranges observed on the training set, int8 symmetric per-tensor weights,
int32 biases with scale input_scale × weight_scale.
"""

from __future__ import annotations

import numpy as np

from ..frontend.tflite.writer import TFLiteBuilder
from .quantization import int8_affine

LAYERS = (1, 16, 16, 1)
X_MAX = 2 * np.pi


def train(steps: int = 3000, seed: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """Float weights [(W[out, in], b[out]), ...] fitted to sin on [0, 2π]."""
    rng = np.random.default_rng(seed)
    x = np.linspace(0, X_MAX, 256, dtype=np.float64)[:, None]
    y = np.sin(x)
    params = []
    for fan_in, fan_out in zip(LAYERS[:-1], LAYERS[1:]):
        params.append([rng.normal(0, np.sqrt(2 / fan_in), (fan_out, fan_in)), np.zeros(fan_out)])
    # Spread the first layer's ReLU hinges over the input range, or most units start dead or linear.
    params[0][1] = -params[0][0][:, 0] * rng.uniform(0, X_MAX, LAYERS[1])
    moments = [[np.zeros_like(p) for p in layer] for layer in params]
    squares = [[np.zeros_like(p) for p in layer] for layer in params]
    lr, beta1, beta2 = 0.01, 0.9, 0.999
    for step in range(1, steps + 1):
        activations = [x]
        for i, (w, b) in enumerate(params):
            z = activations[-1] @ w.T + b
            activations.append(np.maximum(z, 0) if i < len(params) - 1 else z)
        grad = 2 * (activations[-1] - y) / len(x)
        for i in reversed(range(len(params))):
            w, b = params[i]
            grads = [grad.T @ activations[i], grad.sum(axis=0)]
            grad = (grad @ w) * (activations[i] > 0)
            for k in range(2):
                moments[i][k] = beta1 * moments[i][k] + (1 - beta1) * grads[k]
                squares[i][k] = beta2 * squares[i][k] + (1 - beta2) * grads[k] ** 2
                m_hat = moments[i][k] / (1 - beta1 ** step)
                v_hat = squares[i][k] / (1 - beta2 ** step)
                params[i][k] = params[i][k] - lr * m_hat / (np.sqrt(v_hat) + 1e-8)
    return [(w, b) for w, b in params]


def build_sine_model(seed: int = 1) -> bytes:
    """The int8 .tflite bytes of the trained, quantized sine network."""
    params = train(seed=seed)
    x = np.linspace(0, X_MAX, 256)[:, None]
    ranges = [(0.0, X_MAX)]
    h = x
    for i, (w, b) in enumerate(params):
        h = h @ w.T + b
        if i < len(params) - 1:
            h = np.maximum(h, 0)
        ranges.append((float(h.min()), float(h.max())))
    builder = TFLiteBuilder()
    scale, zp = int8_affine(*ranges[0])
    current = builder.tensor("x", (1, 1), "int8", scale=scale, zero_point=zp)
    first = current
    in_scale = scale
    for i, (w, b) in enumerate(params):
        w_scale = float(np.float32(np.abs(w).max() / 127.0))
        w_q = np.clip(np.round(w / w_scale), -127, 127).astype(np.int8)
        b_scale = in_scale * w_scale
        b_q = np.round(b / b_scale).astype(np.int32)
        weight = builder.tensor(f"dense{i}/weights", w.shape, "int8", data=w_q, scale=w_scale, zero_point=0)
        bias = builder.tensor(f"dense{i}/bias", b.shape, "int32", data=b_q, scale=b_scale, zero_point=0)
        out_scale, out_zp = int8_affine(*ranges[i + 1])
        last = i == len(params) - 1
        out = builder.tensor("y" if last else f"dense{i}/out", (1, w.shape[0]), "int8", scale=out_scale,
                             zero_point=out_zp)
        builder.op("FULLY_CONNECTED", [current, weight, bias], [out], activation="NONE" if last else "RELU")
        current, in_scale = out, out_scale
    return builder.inputs(first).outputs(current).build()
