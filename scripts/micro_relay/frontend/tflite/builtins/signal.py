"""TFLite Micro's signal-library custom operators (signal/micro/kernels/), by custom code.

Each reads its flexbuffer options (custom.py) and checks the input and output counts TFLite Micro's Prepare
checks; types, shapes and option ranges are the op's prepare's to refuse (ops/signal_*.py).
"""

from __future__ import annotations

import numpy as np
from tflite.TensorType import TensorType

from ....ir.graph import Tensor, fresh_name
from ....ir.types import DType
from ....ir.types import TensorType as TType
from .context import make_node
from .custom import converts_custom, exact_options, option_int

INT32 = (-(2 ** 31), 2 ** 31 - 1)
_SUBTRACTION_INTS = ("smoothing", "one_minus_smoothing", "alternate_smoothing", "alternate_one_minus_smoothing",
                     "min_signal_remaining", "smoothing_bits", "spectral_subtraction_bits")


def _counts(ctx, inputs, outputs, n_in: int, n_out: int):
    ctx.need_inputs(inputs, n_in)
    if len(outputs) != n_out:
        ctx.fail(f"expected {n_out} output{'s' if n_out > 1 else ''}, got {len(outputs)}")


@converts_custom("SignalWindow")
def window(ctx, op, inputs, outputs, options):
    exact_options(ctx, options, "shift")
    _counts(ctx, inputs, outputs, 2, 1)
    return [make_node(ctx, "signal.window", inputs, outputs, shift=option_int(ctx, options, "shift", *INT32))]


@converts_custom("SignalFftAutoScale")
def fft_auto_scale(ctx, op, inputs, outputs, options):
    exact_options(ctx, options)
    _counts(ctx, inputs, outputs, 1, 2)
    return [make_node(ctx, "signal.fft_auto_scale", inputs, outputs)]


@converts_custom("SignalEnergy")
def energy(ctx, op, inputs, outputs, options):
    exact_options(ctx, options, "start_index", "end_index")
    _counts(ctx, inputs, outputs, 1, 1)
    return [make_node(ctx, "signal.energy", inputs, outputs,
                      start_index=option_int(ctx, options, "start_index", *INT32),
                      end_index=option_int(ctx, options, "end_index", *INT32))]


@converts_custom("SignalFilterBankLog")
def filter_bank_log(ctx, op, inputs, outputs, options):
    exact_options(ctx, options, "output_scale", "input_correction_bits")
    _counts(ctx, inputs, outputs, 1, 1)
    return [make_node(ctx, "signal.filter_bank_log", inputs, outputs,
                      output_scale=option_int(ctx, options, "output_scale", *INT32),
                      input_correction_bits=option_int(ctx, options, "input_correction_bits", *INT32))]


@converts_custom("SignalFilterBank")
def filter_bank(ctx, op, inputs, outputs, options):
    exact_options(ctx, options, "num_channels")
    _counts(ctx, inputs, outputs, 6, 1)
    return [make_node(ctx, "signal.filter_bank", inputs, outputs,
                      num_channels=option_int(ctx, options, "num_channels", 1, 2 ** 15 - 1))]


@converts_custom("SignalFilterBankSquareRoot")
def filter_bank_square_root(ctx, op, inputs, outputs, options):
    exact_options(ctx, options)
    _counts(ctx, inputs, outputs, 2, 1)
    return [make_node(ctx, "signal.filter_bank_square_root", inputs, outputs)]


_RFFT_TYPES = {TensorType.INT16: DType.INT16, TensorType.INT32: DType.INT32, TensorType.FLOAT32: DType.FLOAT32}


def _fft(ctx, inputs, outputs, options, op_name: str, custom: str):
    """T (the TensorType TensorFlow resolved) picks TFLite Micro's variant; it must be the input's type."""
    exact_options(ctx, options, "T", "fft_length")
    _counts(ctx, inputs, outputs, 1, 1)
    kind = option_int(ctx, options, "T", *INT32)
    dtype = ctx.tensors[inputs[0]].type.dtype if inputs[0] in ctx.tensors else None
    if _RFFT_TYPES.get(kind) != dtype:
        ctx.fail(f"{custom}'s type T={kind} does not match its {dtype.value if dtype else 'absent'} input")
    return [make_node(ctx, op_name, inputs, outputs, fft_length=option_int(ctx, options, "fft_length", *INT32))]


@converts_custom("SignalRfft")
def rfft(ctx, op, inputs, outputs, options):
    return _fft(ctx, inputs, outputs, options, "signal.rfft", "SignalRfft")


@converts_custom("SignalIrfft")
def irfft(ctx, op, inputs, outputs, options):
    return _fft(ctx, inputs, outputs, options, "signal.irfft", "SignalIrfft")


@converts_custom("SignalPCAN")
def pcan(ctx, op, inputs, outputs, options):
    exact_options(ctx, options, "snr_shift")
    _counts(ctx, inputs, outputs, 3, 1)
    return [make_node(ctx, "signal.pcan", inputs, outputs, snr_shift=option_int(ctx, options, "snr_shift", *INT32))]


@converts_custom("SignalFilterBankSpectralSubtraction")
def spectral_subtraction(ctx, op, inputs, outputs, options):
    """TFLite Micro keeps the noise estimate in a persistent buffer, zero at allocation: here a state tensor
    of the input's shape, read by the node and stored by an assign of its second output."""
    _counts(ctx, inputs, outputs, 1, 2)
    exact_options(ctx, options, "num_channels", "clamping", *_SUBTRACTION_INTS)
    channels = option_int(ctx, options, "num_channels", 1, 2 ** 31 - 1)
    if inputs[0] not in ctx.tensors:
        ctx.fail("the input is absent or a resource handle")
    x = ctx.tensors[inputs[0]].type
    if x.shape != (channels,) or x.dtype != DType.UINT32:
        ctx.fail(f"input must be uint32 [{channels}] (num_channels), got {x.dtype.value} {list(x.shape)}")
    state = fresh_name(ctx.tensors, f"{outputs[1]}_state")
    ctx.tensors[state] = Tensor(state, TType((channels,), DType.UINT32), initial=np.zeros(channels, np.uint32))
    attrs = {k: option_int(ctx, options, k, *INT32) for k in _SUBTRACTION_INTS}
    clamping = options.get("clamping")
    if not isinstance(clamping, bool):
        ctx.fail(f"custom option 'clamping' must be a bool, got {clamping!r}")
    node = make_node(ctx, "signal.spectral_subtraction", (inputs[0], state), outputs, clamping=clamping, **attrs)
    return [node, make_node(ctx, "assign", (state, outputs[1]), ())]
