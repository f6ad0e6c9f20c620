"""TFLite Micro's streaming signal-library operators (SignalDelay, SignalFramer, SignalStacker,
SignalOverlapAdd), which keep samples between invokes in persistent buffers.

Each buffer becomes a state tensor (its initial value is what TFLite Micro's Prepare and Reset write): the
node reads the state as extra inputs and returns the new state as extra outputs, which assigns store. So the
model's state is sized, planned and reset like every other state (NAME_reset).
"""

from __future__ import annotations

import numpy as np
from tflite.TensorType import TensorType

from ....ir.graph import Tensor, fresh_name
from ....ir.types import DType
from ....ir.types import TensorType as TType
from ....ops.signal_framer import capacity
from .context import make_node
from .custom import converts_custom, exact_options, option_int

LIMIT = 2 ** 20  # samples of one option: far above any audio front end, far below int32 overflow


def _input(ctx, inputs, outputs, n_out: int):
    ctx.need_inputs(inputs, 1)
    if len(outputs) != n_out:
        ctx.fail(f"expected {n_out} output{'s' if n_out > 1 else ''}, got {len(outputs)}")
    if inputs[0] not in ctx.tensors:
        ctx.fail("the input is absent or a resource handle")
    return ctx.tensors[inputs[0]].type


def _state(ctx, base: str, initial: np.ndarray) -> tuple[str, str]:
    """(a state tensor holding `initial` at start and after reset, the tensor its new value goes to)."""
    state = fresh_name(ctx.tensors, f"{base}_state")
    ctx.tensors[state] = Tensor(state, TType(initial.shape, DType(initial.dtype.name)), initial=initial)
    new = fresh_name(ctx.tensors, f"{state}_next")
    ctx.tensors[new] = Tensor(new, ctx.tensors[state].type)
    return state, new


def _rows(ctx, x) -> int:
    if x.rank < 1 or x.shape[-1] < 1:
        ctx.fail(f"input shape {list(x.shape)} has no samples")
    return x.size // x.shape[-1]


@converts_custom("SignalDelay")
def delay(ctx, op, inputs, outputs, options):
    x = _input(ctx, inputs, outputs, 1)
    exact_options(ctx, options, "delay_length")
    length = option_int(ctx, options, "delay_length", 0, LIMIT)
    if length == 0:
        return [make_node(ctx, "reshape", inputs[:1], outputs, newshape=tuple(x.shape))]
    state, new = _state(ctx, outputs[0], np.zeros((_rows(ctx, x), length), np.int16))
    return [make_node(ctx, "signal.delay", (inputs[0], state), (outputs[0], new)),
            make_node(ctx, "assign", (state, new), ())]


@converts_custom("SignalFramer")
def framer(ctx, op, inputs, outputs, options):
    x = _input(ctx, inputs, outputs, 2)
    exact_options(ctx, options, "frame_size", "frame_step", "prefill")
    size = option_int(ctx, options, "frame_size", 1, LIMIT)
    step = option_int(ctx, options, "frame_step", 1, LIMIT)
    prefill = options.get("prefill")
    if not isinstance(prefill, bool):
        ctx.fail(f"custom option 'prefill' must be a bool, got {prefill!r}")
    if prefill and size < step:
        ctx.fail(f"prefill needs frame_size {size} >= frame_step {step}")
    held, held_next = _state(ctx, outputs[0], np.zeros((_rows(ctx, x), capacity(size, step)), np.int16))
    count, count_next = _state(ctx, f"{outputs[0]}_count", np.array([size - step if prefill else 0], np.int32))
    node = make_node(ctx, "signal.framer", (inputs[0], held, count), (*outputs, held_next, count_next),
                     frame_size=size, frame_step=step)
    return [node, make_node(ctx, "assign", (held, held_next), ()), make_node(ctx, "assign", (count, count_next), ())]


@converts_custom("SignalStacker")
def stacker(ctx, op, inputs, outputs, options):
    _input(ctx, inputs, outputs, 2)
    names = {"channels": "num_channels", "left": "stacker_left_context", "right": "stacker_right_context",
             "step": "stacker_step"}
    exact_options(ctx, options, *names.values())
    o = {k: option_int(ctx, options, key, 0, LIMIT) for k, key in names.items()}
    size = o["channels"] * (o["left"] + o["right"] + 1)
    if size > LIMIT:
        ctx.fail(f"num_channels * (left + right + 1) = {size} is above {LIMIT}")
    held, held_next = _state(ctx, outputs[0], np.zeros(max(size, 1), np.int16))
    flags, flags_next = _state(ctx, f"{outputs[0]}_count", np.zeros(2, np.int32))
    node = make_node(ctx, "signal.stacker", (inputs[0], held, flags), (*outputs, held_next, flags_next), **o)
    return [node, make_node(ctx, "assign", (held, held_next), ()), make_node(ctx, "assign", (flags, flags_next), ())]


_OVERLAP_TYPES = {TensorType.INT16: np.int16, TensorType.FLOAT32: np.float32}


@converts_custom("SignalOverlapAdd")
def overlap_add(ctx, op, inputs, outputs, options):
    """T (the TensorType TensorFlow resolved) picks TFLite Micro's variant; it must be the input's type."""
    x = _input(ctx, inputs, outputs, 1)
    exact_options(ctx, options, "T", "frame_step")
    kind = option_int(ctx, options, "T", -(2 ** 31), 2 ** 31 - 1)
    dtype = _OVERLAP_TYPES.get(kind)
    if dtype is None or np.dtype(dtype) != x.dtype.numpy:
        ctx.fail(f"SignalOverlapAdd's type T={kind} does not match its {x.dtype.value} input")
    step = option_int(ctx, options, "frame_step", 1, LIMIT)
    if x.rank < 2 or x.shape[-1] < 1 or x.shape[-2] < 1:
        ctx.fail(f"input must be [..., frames, frame] with samples, got shape {list(x.shape)}")
    rows = x.size // (x.shape[-1] * x.shape[-2])
    state, new = _state(ctx, outputs[0], np.zeros((rows, x.shape[-1]), dtype))
    return [make_node(ctx, "signal.overlap_add", (inputs[0], state), (outputs[0], new), frame_step=step),
            make_node(ctx, "assign", (state, new), ())]
