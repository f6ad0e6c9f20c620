"""TFLite Micro's signal-library custom operators (signal/micro/kernels/), by custom code.

Each reads its flexbuffer options (custom.py) and checks the input and output counts TFLite Micro's Prepare
checks; types, shapes and option ranges are the op's prepare's to refuse (ops/signal_*.py).
"""

from __future__ import annotations

from tflite.TensorType import TensorType

from ....ir.types import DType
from .context import make_node
from .custom import converts_custom, option_int

INT32 = (-(2 ** 31), 2 ** 31 - 1)


def _counts(ctx, inputs, outputs, n_in: int, n_out: int):
    ctx.need_inputs(inputs, n_in)
    if len(outputs) != n_out:
        ctx.fail(f"expected {n_out} output{'s' if n_out > 1 else ''}, got {len(outputs)}")


@converts_custom("SignalWindow")
def window(ctx, op, inputs, outputs, options):
    _counts(ctx, inputs, outputs, 2, 1)
    return [make_node(ctx, "signal.window", inputs, outputs, shift=option_int(ctx, options, "shift", *INT32))]


@converts_custom("SignalFftAutoScale")
def fft_auto_scale(ctx, op, inputs, outputs, options):
    _counts(ctx, inputs, outputs, 1, 2)
    return [make_node(ctx, "signal.fft_auto_scale", inputs, outputs)]


@converts_custom("SignalEnergy")
def energy(ctx, op, inputs, outputs, options):
    _counts(ctx, inputs, outputs, 1, 1)
    return [make_node(ctx, "signal.energy", inputs, outputs,
                      start_index=option_int(ctx, options, "start_index", *INT32),
                      end_index=option_int(ctx, options, "end_index", *INT32))]


@converts_custom("SignalFilterBankLog")
def filter_bank_log(ctx, op, inputs, outputs, options):
    _counts(ctx, inputs, outputs, 1, 1)
    return [make_node(ctx, "signal.filter_bank_log", inputs, outputs,
                      output_scale=option_int(ctx, options, "output_scale", *INT32),
                      input_correction_bits=option_int(ctx, options, "input_correction_bits", *INT32))]


@converts_custom("SignalFilterBank")
def filter_bank(ctx, op, inputs, outputs, options):
    _counts(ctx, inputs, outputs, 6, 1)
    return [make_node(ctx, "signal.filter_bank", inputs, outputs,
                      num_channels=option_int(ctx, options, "num_channels", 1, 2 ** 15 - 1))]


@converts_custom("SignalFilterBankSquareRoot")
def filter_bank_square_root(ctx, op, inputs, outputs, options):
    _counts(ctx, inputs, outputs, 2, 1)
    return [make_node(ctx, "signal.filter_bank_square_root", inputs, outputs)]


_RFFT_TYPES = {TensorType.INT16: DType.INT16, TensorType.INT32: DType.INT32, TensorType.FLOAT32: DType.FLOAT32}


@converts_custom("SignalRfft")
def rfft(ctx, op, inputs, outputs, options):
    """T (the TensorType TensorFlow resolved) picks TFLite Micro's variant; it must be the input's type."""
    _counts(ctx, inputs, outputs, 1, 1)
    kind = option_int(ctx, options, "T", *INT32)
    dtype = ctx.tensors[inputs[0]].type.dtype if inputs[0] in ctx.tensors else None
    if _RFFT_TYPES.get(kind) != dtype:
        ctx.fail(f"SignalRfft's type T={kind} does not match its {dtype.value if dtype else 'absent'} input")
    return [make_node(ctx, "signal.rfft", inputs, outputs, fft_length=option_int(ctx, options, "fft_length", *INT32))]
