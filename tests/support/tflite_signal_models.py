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


def fft_auto_scale_model(size=512) -> bytes:
    """SignalFftAutoScale: int16 [size] -> int16 [size] and the int32 scalar shift."""
    b = TFLiteBuilder()
    x = b.tensor("input", (size,), "int16")
    y = b.tensor("output", (size,), "int16")
    s = b.tensor("scale_bits", (), "int32")
    b.custom_op("SignalFftAutoScale", [x], [y, s])
    return b.inputs(x).outputs(y, s).build()


def energy_model(bins=257, start_index=0, end_index=None) -> bytes:
    """SignalEnergy: interleaved int16 [2 * bins] -> uint32 [bins]."""
    b = TFLiteBuilder()
    x = b.tensor("input", (2 * bins,), "int16")
    y = b.tensor("output", (bins,), "uint32")
    b.custom_op("SignalEnergy", [x], [y], start_index=start_index,
                end_index=bins if end_index is None else end_index)
    return b.inputs(x).outputs(y).build()


def filter_bank_log_model(channels=40, output_scale=1600, input_correction_bits=3) -> bytes:
    """SignalFilterBankLog: uint32 [channels] -> int16 [channels]."""
    b = TFLiteBuilder()
    x = b.tensor("input", (channels,), "uint32")
    y = b.tensor("output", (channels,), "int16")
    b.custom_op("SignalFilterBankLog", [x], [y], output_scale=output_scale,
                input_correction_bits=input_correction_bits)
    return b.inputs(x).outputs(y).build()


def scaled_frames(size: int, seed: int) -> list[np.ndarray]:
    """int16 frames of every loudness: silence, one bit, each magnitude 2^k, and -32768 early and late."""
    rng = np.random.default_rng(seed)
    frames = [np.zeros(size, np.int16)]
    for bits in sorted(rng.choice(16, 4, replace=False)):
        frames.append(rng.integers(-(1 << bits), (1 << bits) + 1, size).astype(np.int16))
    for where in (0, size - 1, size // 2):
        frame = rng.integers(-300, 301, size).astype(np.int16)
        frame[where] = -32768
        frames.append(frame)
    return frames


def wide_uint32(shape, seed: int) -> np.ndarray:
    """uint32 values spread over every magnitude 2^0..2^32, with 0, 1, 2 and the maximum."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 33, int(np.prod(shape)))
    x = (rng.random(bits.size) * np.exp2(bits)).astype(np.uint64).clip(0, 2 ** 32 - 1)
    corners = np.array([0, 1, 2, 3, 2 ** 32 - 1, 2 ** 31, 65535, 65536], dtype=np.uint64)
    x[: min(len(corners), x.size)] = corners[: x.size]
    return x.astype(np.uint32).reshape(shape)
