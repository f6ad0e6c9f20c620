"""TFLite Micro's signal-library ops (the micro_speech audio front end as CUSTOM operators) against TFLite
Micro: compiled C and the reference interpreter on single-op models our writer makes, with the kernels'
flexbuffer options drawn by hypothesis and named cases for the shapes the front end has (400-sample frames,
a 512-point spectrum, 40 channels). Malformed options and types end in a one-line CompileError.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.lower import lower
from micro_relay.passes import run_pipeline
from support.model_check import assert_bit_exact
from support.tflite_models import SEEDS, check
from support.tflite_signal_models import (energy_model, extremes, extremes_int16, fft_auto_scale_model, float_frames,
                                         filter_bank_log_model, filter_bank_model, mel_config, pcan_lut, pcan_model,
                                         random_config, rfft_model, scaled_frames, spectral_subtraction_model,
                                         square_root_model, subtraction_invokes, wide_uint32, wide_uint64, window_model)
from support.tflite_state_models import check_invokes


def _samples(model: bytes, seeds=(0, 1, 2)):
    graph = read_tflite(model, "test model")
    return [[extremes_int16(graph.type_of(graph.inputs[0]).shape, s)] for s in seeds]


def _check_bit_exact(model: bytes, samples) -> None:
    """Compiled C and reference equal TFLite Micro bit for bit, floats included (check allows float rounding)."""
    assert_bit_exact(model, samples)


def _refused(model: bytes, words: str):
    with pytest.raises(CompileError) as info:
        lower(run_pipeline(read_tflite(model, "m")))
    assert words in str(info.value) and "\n" not in str(info.value)


# -- SignalWindow ----------------------------------------------------------------------------------------

WINDOW_CASES = {
    "micro_speech 30 ms frame, Q12 Hann": dict(shape=(400,), window_size=400, shift=12),
    "batch of frames": dict(shape=(3, 2, 64), window_size=64, shift=14),
    "noise window, no shift": dict(shape=(1, 32), window_size=32, shift=0, seed=7),
    "noise window, shift 31": dict(shape=(16,), window_size=8, shift=31, seed=3),
}


@pytest.mark.parametrize("case", WINDOW_CASES)
def test_window_cases(case):
    model = window_model(**WINDOW_CASES[case])
    check(model, samples=_samples(model))


@given(frames=st.integers(1, 4), window_size=st.integers(1, 160), shift=st.integers(0, 31), seed=SEEDS)
def test_window_matches_tflm(frames, window_size, shift, seed):
    model = window_model((frames * window_size,), window_size, shift, seed)
    check(model, samples=_samples(model, (seed % 1000,)))


@pytest.mark.parametrize("kwargs, words", [
    (dict(shape=(10,), window_size=4), "whole number of 4-sample windows"),
    (dict(shape=(8,), window_size=8, shift=32), "shift 32 is outside [0, 31]"),
    (dict(shape=(8,), window_size=8, shift=-1, seed=1), "shift -1 is outside [0, 31]"),
])
def test_window_refusals(kwargs, words):
    _refused(window_model(**kwargs), words)


# -- SignalFftAutoScale ----------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [512, 256, 1, 7])
def test_fft_auto_scale_frames(size):
    check(fft_auto_scale_model(size), samples=[[f] for f in scaled_frames(size, size)])


@given(size=st.integers(1, 600), seed=SEEDS)
def test_fft_auto_scale_matches_tflm(size, seed):
    check(fft_auto_scale_model(size), samples=[[f] for f in scaled_frames(size, seed)[:4]])


# -- SignalEnergy ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("bins", [257, 129, 1])
def test_energy_spectrum(bins):
    model = energy_model(bins)
    check(model, samples=_samples(model))


@given(bins=st.integers(1, 300), seed=SEEDS)
def test_energy_matches_tflm(bins, seed):
    model = energy_model(bins)
    check(model, samples=_samples(model, (seed % 1000,)))


@pytest.mark.parametrize("kwargs, words", [
    (dict(bins=8, start_index=3, end_index=9), "bins [3, 9) are outside"),
    (dict(bins=8, start_index=5, end_index=4), "bins [5, 4) are outside"),
    (dict(bins=8, start_index=-1, end_index=4), "bins [-1, 4) are outside"),
])
def test_energy_refusals(kwargs, words):
    _refused(energy_model(**kwargs), words)


# -- SignalFilterBankLog ---------------------------------------------------------------------------------

FILTER_BANK_LOG_CASES = {
    "micro_speech 40 channels": dict(channels=40, output_scale=1600, input_correction_bits=3),
    "no correction, unit scale": dict(channels=16, output_scale=1, input_correction_bits=0),
    "scale that wraps uint32": dict(channels=32, output_scale=40000, input_correction_bits=0),
    "negative scale": dict(channels=8, output_scale=-5, input_correction_bits=1),
    "shift 31": dict(channels=8, output_scale=1600, input_correction_bits=31),
}


@pytest.mark.parametrize("case", FILTER_BANK_LOG_CASES)
def test_filter_bank_log_cases(case):
    kwargs = FILTER_BANK_LOG_CASES[case]
    check(filter_bank_log_model(**kwargs), samples=[[wide_uint32((kwargs["channels"],), s)] for s in range(3)])


@given(channels=st.integers(1, 64), scale=st.integers(-2 ** 31, 2 ** 31 - 1), bits=st.integers(0, 31), seed=SEEDS)
def test_filter_bank_log_matches_tflm(channels, scale, bits, seed):
    check(filter_bank_log_model(channels, scale, bits), samples=[[wide_uint32((channels,), seed)]])


@pytest.mark.parametrize("bits", [32, -1])
def test_filter_bank_log_refuses_shifts(bits):
    _refused(filter_bank_log_model(8, 1600, bits), f"input_correction_bits {bits} is outside [0, 31]")


# -- SignalFilterBank ------------------------------------------------------------------------------------

FILTER_BANK_CASES = {
    "micro_speech 40 mel channels over 257 bins": dict(channels=40, bins=257),
    "32 channels over 129 bins": dict(channels=32, bins=129),
    "one channel": dict(channels=1, bins=16),
}


@pytest.mark.parametrize("case", FILTER_BANK_CASES)
def test_filter_bank_mel(case):
    kwargs = FILTER_BANK_CASES[case]
    model = filter_bank_model(mel_config(**kwargs), kwargs["bins"])
    check(model, samples=[[wide_uint32((kwargs["bins"],), s)] for s in range(3)])


@given(channels=st.integers(1, 48), bins=st.integers(1, 300), seed=SEEDS)
def test_filter_bank_matches_tflm(channels, bins, seed):
    model = filter_bank_model(random_config(channels, bins, seed), bins)
    check(model, samples=[[wide_uint32((bins,), seed)]])


def test_filter_bank_refuses_reads_past_the_spectrum():
    config = mel_config(8, 64)
    config["freq_starts"] = config["freq_starts"] + 60
    _refused(filter_bank_model(config, 64), "reads past the 64 spectrum bins")


def test_filter_bank_refuses_too_few_channels():
    _refused(filter_bank_model(mel_config(8, 64), 64, channels=9), "num_channels 9 needs 10 channel starts")


# -- SignalFilterBankSquareRoot --------------------------------------------------------------------------

@pytest.mark.parametrize("scale_bits", [0, 1, 7, 15, 31])
def test_square_root_channels(scale_bits):
    check(square_root_model(40), samples=[[wide_uint64((40,), s), np.array(scale_bits, np.int32)] for s in range(3)])


@given(channels=st.integers(1, 64), scale_bits=st.integers(0, 31), seed=SEEDS)
def test_square_root_matches_tflm(channels, scale_bits, seed):
    check(square_root_model(channels), samples=[[wide_uint64((channels,), seed), np.array(scale_bits, np.int32)]])


def test_square_root_of_constant_uint64_channels():
    """uint64 constants reach the C as UINT64_C literals (values past 2^63 included)."""
    b = TFLiteBuilder()
    x = b.tensor("x", (10,), "uint64", data=wide_uint64((10,), 4))
    s, y = b.tensor("scale_bits", (), "int32"), b.tensor("y", (10,), "uint32")
    b.custom_op("SignalFilterBankSquareRoot", [x, s], [y])
    check(b.inputs(s).outputs(y).build(), samples=[[np.array(k, np.int32)] for k in (0, 3, 31)])


# -- SignalRfft ------------------------------------------------------------------------------------------

RFFT_CASES = {
    "micro_speech 400 samples into 512 (int16)": dict(fft_length=512, shape=(400,)),
    "micro_speech 400 samples into 512 (int32)": dict(fft_length=512, shape=(400,), dtype="int32"),
    "frames of 256 (int16)": dict(fft_length=256, shape=(3, 256)),
    "smallest, 4": dict(fft_length=4, shape=(2, 2, 3)),
    "radix-2 tail, 32 (int32)": dict(fft_length=32, shape=(1, 32), dtype="int32"),
    "micro_speech 400 samples into 512 (float32)": dict(fft_length=512, shape=(400,), dtype="float32"),
}


@pytest.mark.parametrize("case", RFFT_CASES)
def test_rfft_cases(case):
    kwargs = RFFT_CASES[case]
    model = rfft_model(**kwargs)
    dtype = kwargs.get("dtype", "int16")
    if dtype == "float32":  # KissFFT's float build, operation for operation: bit-exact too
        _check_bit_exact(model, [[float_frames(kwargs["shape"], s)] for s in range(3)])
        return
    samples = [[extremes(kwargs["shape"], dtype, s)] for s in range(2)]
    samples.append([(extremes(kwargs["shape"], dtype, 9) >> 4).astype(dtype)])  # quieter: fewer wraps
    check(model, samples=samples)


@given(log_length=st.integers(2, 10), fill=st.floats(0.0, 1.0), frames=st.integers(1, 3),
       dtype=st.sampled_from(["int16", "int32", "float32"]), seed=SEEDS)
def test_rfft_matches_tflm(log_length, fill, frames, dtype, seed):
    n = 1 << log_length
    shape = (frames, max(1, round(n * fill)))
    x = float_frames(shape, seed) if dtype == "float32" else extremes(shape, dtype, seed)
    _check_bit_exact(rfft_model(n, shape, dtype), [[x]])


@pytest.mark.parametrize("kwargs, words", [
    (dict(fft_length=384, shape=(384,)), "fft_length 384 is not a power of two"),
    (dict(fft_length=2, shape=(2,)), "fft_length 2 is not a power of two in [4, 32768]"),
    (dict(fft_length=256, shape=(400,)), "frames of 400 samples are longer than fft_length 256"),
    (dict(fft_length=256, shape=(256,), t=2), "type T=2 does not match its int16 input"),
])
def test_rfft_refusals(kwargs, words):
    _refused(rfft_model(**kwargs), words)


# -- SignalPCAN ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("snr_shift, lut_seed", [(6, None), (0, None), (12, 5), (40, 9), (63, None)])
def test_pcan_channels(snr_shift, lut_seed):
    lut = None if lut_seed is None else pcan_lut(lut_seed)
    model = pcan_model(40, snr_shift, lut)
    check(model, samples=[[wide_uint32((40,), s), wide_uint32((40,), s + 50)] for s in range(3)])


@given(channels=st.integers(1, 64), snr_shift=st.integers(0, 63), lut_seed=st.one_of(st.none(), SEEDS), seed=SEEDS)
def test_pcan_matches_tflm(channels, snr_shift, lut_seed, seed):
    lut = None if lut_seed is None else pcan_lut(lut_seed)
    check(pcan_model(channels, snr_shift, lut), samples=[[wide_uint32((channels,), seed),
                                                          wide_uint32((channels,), seed + 1)]])


def test_pcan_refuses_a_short_table():
    b = TFLiteBuilder()
    x, noise = b.tensor("x", (8,), "uint32"), b.tensor("n", (8,), "uint32")
    table = b.tensor("lut", (100,), "int16", data=np.zeros(100))
    b.custom_op("SignalPCAN", [x, noise, table], [b.tensor("y", (8,), "uint32")], snr_shift=6)
    _refused(b.build(), "gain table has 100 entries")


# -- SignalFilterBankSpectralSubtraction (stateful) ------------------------------------------------------

@pytest.mark.parametrize("options", [{}, dict(clamping=True), dict(alternate_smoothing=3000,
                                                                    alternate_one_minus_smoothing=13384),
                                     dict(smoothing_bits=0, spectral_subtraction_bits=0, smoothing=3, clamping=True)],
                         ids=["micro_speech", "clamping", "alternate odd channels", "no fraction bits"])
def test_spectralsubtraction_invokes(options):
    check_invokes(spectral_subtraction_model(40, **options), samples=subtraction_invokes(40, 1))


@given(channels=st.integers(1, 48), smoothing_bits=st.integers(0, 31), bits=st.integers(0, 63),
       coefficients=st.lists(st.integers(-2 ** 31, 2 ** 31 - 1), min_size=5, max_size=5), clamping=st.booleans(),
       seed=SEEDS)
def test_spectral_subtraction_matches_tflm(channels, smoothing_bits, bits, coefficients, clamping, seed):
    names = ("smoothing", "one_minus_smoothing", "alternate_smoothing", "alternate_one_minus_smoothing",
             "min_signal_remaining")
    model = spectral_subtraction_model(channels, smoothing_bits=smoothing_bits, spectral_subtraction_bits=bits,
                                       clamping=clamping, **dict(zip(names, coefficients)))
    check_invokes(model, samples=subtraction_invokes(channels, seed, 3))


def test_spectral_subtraction_refuses_shifts():
    _refused(spectral_subtraction_model(8, smoothing_bits=32), "smoothing_bits 32 is outside [0, 31]")


def test_log_table_in_the_runtime_is_the_computed_one():
    """mr_signal_filter_bank_log.c's table is ops/_signal_log.py's LOG_LUT, which is computed from its
    definition (the filter_bank_log tests above check the arithmetic it feeds against TFLite Micro)."""
    import re

    from conftest import ROOT
    from micro_relay.ops._signal_log import LOG_LUT

    source = (ROOT / "crt" / "src" / "mr_signal_filter_bank_log.c").read_text()
    body = re.search(r"mr_log_lut\[130\] = \{(.*?)\};", source, re.S).group(1)
    assert [int(v) for v in body.replace("\n", " ").split(",") if v.strip()] == LOG_LUT.tolist()
