"""Single-op TFLite models of TFLite Micro's streaming signal operators (SignalDelay, SignalFramer,
SignalStacker, SignalOverlapAdd), written with the project's TFLite writer, and which of their frames TFLite
Micro defines.

Framer and Stacker say with a bool output whether their frames are complete; TFLite Micro leaves an
incomplete frame's bytes as the arena had them, so a test compares only the frames `framer_complete` and the
valid flag say are defined (their closed forms follow from the ops' buffer arithmetic, not from our code).
"""

from __future__ import annotations

import numpy as np

from micro_relay.frontend.tflite.writer import TFLiteBuilder

INT16_TYPE, FLOAT32_TYPE = 7, 0  # tflite TensorType codes, SignalOverlapAdd's T


def delay_model(shape=(2, 16), delay_length=3) -> bytes:
    b = TFLiteBuilder()
    x = b.tensor("input", shape, "int16")
    y = b.tensor("output", shape, "int16")
    b.custom_op("SignalDelay", [x], [y], delay_length=delay_length)
    return b.inputs(x).outputs(y).build()


def framer_model(shape=(480,), frame_size=400, frame_step=160, prefill=False) -> bytes:
    """shape[-1] must be a multiple of frame_step: int16 `shape` -> [..., shape[-1] / step, frame_size], bool."""
    b = TFLiteBuilder()
    x = b.tensor("input", shape, "int16")
    y = b.tensor("frames", (*shape[:-1], shape[-1] // frame_step, frame_size), "int16")
    v = b.tensor("valid", (), "bool")
    b.custom_op("SignalFramer", [x], [y, v], frame_size=frame_size, frame_step=frame_step, prefill=prefill)
    return b.inputs(x).outputs(y, v).build()


def framer_complete(invoke: int, frames: int, frame_size: int, frame_step: int, prefill: bool) -> np.ndarray:
    """Which frames of an invoke are complete: the g-th frame since reset has (g + 1) * step new samples, plus
    frame_size - step zeros with prefill; it is complete when those reach frame_size."""
    g = invoke * frames + np.arange(frames)
    held = (g + 1) * frame_step + (frame_size - frame_step if prefill else 0)
    return held >= frame_size


def stacker_model(channels=4, left=2, right=1, step=1) -> bytes:
    b = TFLiteBuilder()
    x = b.tensor("input", (channels,), "int16")
    y = b.tensor("stacked", (channels * (left + right + 1),), "int16")
    v = b.tensor("valid", (), "bool")
    b.custom_op("SignalStacker", [x], [y, v], num_channels=channels, stacker_left_context=left,
                stacker_right_context=right, stacker_step=step)
    return b.inputs(x).outputs(y, v).build()


def overlap_add_model(shape=(2, 3, 8), frame_step=4, dtype="int16") -> bytes:
    """int16 or float32 [..., frames, frame] -> [..., frames * frame_step]."""
    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype)
    y = b.tensor("output", (*shape[:-2], shape[-2] * frame_step), dtype)
    b.custom_op("SignalOverlapAdd", [x], [y], T=INT16_TYPE if dtype == "int16" else FLOAT32_TYPE,
                frame_step=frame_step)
    return b.inputs(x).outputs(y).build()
