"""SignalIrfft (KissFFT's kiss_fftri in Q15, Q31 and float) against TFLite Micro: compiled C and the reference
interpreter bit for bit, on the lengths audio models use (512: the micro_speech spectrum back to a frame) and
drawn ones, with spectra over the whole integer range (wrapping sums) and quieter ones. The float kernel
inverts the float forward transform: a round trip gives the frame back.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.lower import lower
from micro_relay.passes import run_pipeline
from micro_relay.reference import Session
from support.model_check import assert_bit_exact
from support.tflite_models import SEEDS
from support.tflite_signal_models import extremes, float_frames, irfft_model, rfft_model




def _spectra(shape, dtype: str, seed: int):
    if dtype == "float32":
        return [[float_frames(shape, seed)]]
    loud = extremes(shape, dtype, seed)
    return [[loud], [(loud >> 6).astype(dtype)]]


IRFFT_CASES = {
    "micro_speech spectrum back to 512 samples (int16)": dict(fft_length=512),
    "512 (int32)": dict(fft_length=512, dtype="int32"),
    "512 (float32)": dict(fft_length=512, dtype="float32"),
    "rows of 256 (int16)": dict(fft_length=256, rows=(3,)),
    "smallest, 4 (int32)": dict(fft_length=4, rows=(2, 2), dtype="int32"),
    "radix-2 tail, 32 (float32)": dict(fft_length=32, rows=(2,), dtype="float32"),
}


@pytest.mark.parametrize("case", IRFFT_CASES)
def test_irfft_cases(case):
    kwargs = IRFFT_CASES[case]
    shape = (*kwargs.get("rows", ()), kwargs["fft_length"] + 2)
    assert_bit_exact(irfft_model(**kwargs), _spectra(shape, kwargs.get("dtype", "int16"), 4))


@given(log_length=st.integers(2, 10), rows=st.integers(1, 3), dtype=st.sampled_from(["int16", "int32", "float32"]),
       seed=SEEDS)
def test_irfft_matches_tflm(log_length, rows, dtype, seed):
    n = 1 << log_length
    assert_bit_exact(irfft_model(n, (rows,), dtype), _spectra((rows, n + 2), dtype, seed)[:1])


def test_float_round_trip_is_the_frame():
    """An independent check of the inverse's orientation (the phases' sign) and scale: irfft(rfft(x)) = x."""
    x = float_frames((2, 64), 3)
    spectrum = Session(run_pipeline(read_tflite(rfft_model(64, (2, 64), "float32"), "rfft"))).invoke([x])[0]
    back = Session(run_pipeline(read_tflite(irfft_model(64, (2,), "float32"), "irfft"))).invoke([spectrum])[0]
    np.testing.assert_allclose(back, x, rtol=1e-4, atol=1e-4 * float(np.abs(x).max()))


@pytest.mark.parametrize("kwargs, words", [
    (dict(fft_length=384), "fft_length 384 is not a power of two"),
    (dict(fft_length=256, out_length=200), "output type int16[200] differs from inferred int16[256]"),
    (dict(fft_length=256, t=2), "SignalIrfft's type T=2 does not match its int16 input"),
])
def test_irfft_refusals(kwargs, words):
    with pytest.raises(CompileError) as info:
        lower(run_pipeline(read_tflite(irfft_model(**kwargs), "m")))
    assert words in str(info.value) and "\n" not in str(info.value)
