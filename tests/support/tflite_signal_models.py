"""Single-op TFLite models of TFLite Micro's signal-library custom operators (SignalWindow, ...), written with
the project's TFLite writer (`custom_op`: flexbuffer options), and the sample inputs that reach their corners.

Builders make only models TFLite Micro's Prepare accepts: the types and ranks its kernels check. Window
weights are a seeded Q-format Hann window or seeded noise, so hypothesis draws one integer, not the table.
"""

from __future__ import annotations

import numpy as np

from micro_relay.frontend.tflite.writer import TFLiteBuilder


def hann_q(size: int, shift: int) -> np.ndarray:
    """A Hann window in Q`shift` (the micro_speech front end uses 400 samples, Q12), as int16."""
    n = np.arange(size)
    return np.round((0.5 - 0.5 * np.cos(2 * np.pi * (n + 0.5) / size)) * (1 << min(shift, 14))).astype(np.int16)


def window_model(shape=(1, 400), window_size=400, shift=12, seed=None) -> bytes:
    """SignalWindow: int16 `shape` times an int16 window of `window_size` (Hann, or noise when `seed`)."""
    if seed is None:
        weights = hann_q(window_size, shift)
    else:
        weights = np.random.default_rng(seed).integers(-32768, 32768, window_size)
    b = TFLiteBuilder()
    x = b.tensor("input", shape, "int16")
    w = b.tensor("window", (window_size,), "int16", data=weights)
    y = b.tensor("output", shape, "int16")
    b.custom_op("SignalWindow", [x, w], [y], shift=shift)
    return b.inputs(x).outputs(y).build()


def extremes_int16(shape, seed: int) -> np.ndarray:
    """int16 samples with the extremes (-32768, 32767, 0, +-1) mixed into uniform noise."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-32768, 32768, int(np.prod(shape)))
    corners = np.array([-32768, 32767, 0, 1, -1])
    x[: min(len(corners), x.size)] = corners[: x.size]
    return rng.permutation(x).astype(np.int16).reshape(shape)
