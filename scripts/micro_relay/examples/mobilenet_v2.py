"""MobileNetV2 (Sandler et al. 2018) as an int8 TFLite model of our own: seeded weights, activation ranges
calibrated like the shape family's (examples/shape_family.py), TensorFlow's SAME padding (stride 2: nothing
before, one row and column after).

At 224x224 RGB it is the network that motivates running layers row by row and in patches: the input alone is
150,528 B and the first layers' tensors 112x112. At width 0.75 (SAMPLE_WIDTH) it needs 1,214,664 B of arena
layer by layer, 207,208 B row by row in one patch, and fits 176 KB of a 192 KB Cortex-M4 (STM32F429:
nucleo_f429zi) only in patches (docs/architecture.md, "Patches"); its weights (1.55 MB) fit that board's 2 MB of
flash. The classifier is a 10-class dense layer after the global average pool (ImageNet's 1000 classes would
add 1.28 MB of weights).
"""

from __future__ import annotations

from .shape_family import POOL, ModelSpec, build_model, conv, dense, inverted_residual

# (expand, channels at width 1.0, blocks, first stride), the paper's Table 2
STAGES = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1))
LAST_CHANNELS = 1280  # kept at widths below 1.0, as torchvision does
SAMPLE_WIDTH = 0.75  # samples/mobilenet_v2: 1.5 MB of weights for a 2 MB board, and an arena that needs patches


def divisible(value: float, divisor: int = 8) -> int:
    """Channels rounded to a multiple of 8, never more than 10% below the width-scaled count (torchvision's
    _make_divisible)."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def mobilenet_v2_spec(width: float = 0.35, size: int = 224, classes: int = 10) -> ModelSpec:
    channels = divisible(32 * width)
    layers = [conv(channels, 3, stride=2, activation="RELU6")]
    for expand, base, blocks, stride in STAGES:
        out = divisible(base * width)
        for k in range(blocks):
            layers += inverted_residual(channels, out, expand, stride if k == 0 else 1)
            channels = out
    layers += [conv(LAST_CHANNELS, 1, activation="RELU6"), POOL, dense(classes, "NONE")]
    return ModelSpec(f"mobilenet_v2_{width}_{size}", "MobileNetV2 in full", (1, size, size, 3), tuple(layers))


def build_mobilenet_v2(width: float = 0.35, size: int = 224, classes: int = 10) -> bytes:
    return build_model(mobilenet_v2_spec(width, size, classes))
