"""The signal ops together and where they run: the micro_speech front end chained on tones and on to keyword
scores (against TFLite Micro over consecutive invokes), the CUSTOM-operator dispatch's refusals, the runtime
sources under strict warnings, the chain on an emulated Cortex-M4, and the kernels under ASan and UBSan.
Single ops one by one are test_signal_vs_tflm.py's.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from flatbuffers import flexbuffers

from conftest import ROOT
from micro_relay.compiler import compile_graph, write_output
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.lower import lower
from micro_relay.passes import run_pipeline
from support.c_harness import build_host_program, run_host_program
from support.tflite_signal_models import (extremes, fft_auto_scale_model, filter_bank_model, front_end_model,
                                         mel_config, pcan_lut, pcan_model, rfft_model, scaled_frames,
                                         spectral_subtraction_model, square_root_model, subtraction_invokes,
                                         tone_frames, wide_uint32, wide_uint64)
from support.tflite_state_models import check_invokes
from support.tflm_oracle import tflm_invokes


# -- the runtime sources ---------------------------------------------------------------------------------

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wconversion", "-Wsign-conversion", "-Wshadow",
          "-Wcast-qual", "-Wstrict-prototypes", "-Wmissing-prototypes"]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_signal_runtime_sources_build_warning_free(cc, tmp_path):
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    sources = sorted((ROOT / "crt" / "src").glob("mr_signal_*.c"))
    assert sources
    for level in ("-O0", "-O2", "-Os"):
        cmd = [cc, *STRICT, level, "-I", str(ROOT / "crt" / "include"), "-c", *map(str, sources)]
        result = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
        assert result.returncode == 0, f"{' '.join(cmd)}\n{result.stderr}"


# -- the chain: PCM to features, and to keyword scores ---------------------------------------------------

@pytest.mark.parametrize("hz", [440.0, 1000.0, 3500.0])
def test_front_end_chain_on_a_tone(hz):
    """The micro_speech front end as ten signal ops, over consecutive frames of a tone: every invoke's 40 log
    features match TFLite Micro (the spectral subtraction's state carries across the invokes)."""
    check_invokes(front_end_model(), samples=tone_frames(6, hz=hz, seed=int(hz)))


def test_pcm_to_keyword_scores():
    """PCM in, int8 keyword scores out, one compiled artifact: the front end, QUANTIZE, FULLY_CONNECTED, SOFTMAX."""
    check_invokes(front_end_model(classes=4, seed=3), samples=tone_frames(5, hz=1500.0, seed=7))


# -- custom operators in the reader ----------------------------------------------------------------------

def _custom_model(code: str, **options) -> bytes:
    b = TFLiteBuilder()
    x, y = b.tensor("x", (8,), "int16"), b.tensor("y", (8,), "int16")
    w = b.tensor("w", (8,), "int16", data=np.ones(8))
    return b.custom_op(code, [x, w], [y], **options).build()


@pytest.mark.parametrize("model, words", [
    (lambda: _custom_model("SignalNotAnOp", shift=1), "unsupported custom operator 'SignalNotAnOp'"),
    (lambda: _custom_model("SignalWindow"), "custom options [] are not exactly ['shift']"),
    (lambda: _custom_model("SignalWindow", shift=1, alpha=2), "which TFLite Micro reads by position"),
    (lambda: _custom_model("SignalWindow", shift="3"), "custom option 'shift' must be an integer"),
    (lambda: _custom_model("SignalWindow", shift=2 ** 40), "outside [-2147483648, 2147483647]"),
], ids=["unknown code", "missing option", "extra option", "string option", "option past int32"])
def test_custom_operator_refusals(model, words):
    with pytest.raises(CompileError) as info:
        read_tflite(model(), "m")
    assert words in str(info.value) and "\n" not in str(info.value)


def test_corrupt_custom_options_fail_in_one_line():
    model = bytearray(_custom_model("SignalWindow", shift=3))
    blob = bytes(flexbuffers.Dumps({"shift": 3}))
    at = bytes(model).index(blob)
    model[at + len(blob) - 1] ^= 0xFF  # the root's byte width: the map is unreadable
    with pytest.raises(CompileError) as info:
        read_tflite(bytes(model), "m")
    assert "corrupt custom_options flexbuffer (16 bytes)" in str(info.value) and "\n" not in str(info.value)


# -- on a Cortex-M4 under QEMU ---------------------------------------------------------------------------

def test_signal_chain_is_bit_exact_on_cortex_m4(arm_tools, tmp_path):
    """The front end and the keyword model built by the target's compiler, on a seeded random frame (TFLite
    Micro on the host as the oracle), with the Q31 and float FFTs and a filter bank on their own."""
    from support.cortex_m_cases import assert_bit_exact, bench_cases

    models = {"front_end": front_end_model(), "keyword_scores": front_end_model(classes=4, seed=3),
              "rfft32": rfft_model(512, (400,), "int32"), "rfft_f32": rfft_model(512, (400,), "float32"),
              "filter_bank": filter_bank_model(mel_config(), 257)}
    for result in bench_cases(tmp_path, models).values():
        assert_bit_exact(result)


# -- under AddressSanitizer and UBSan --------------------------------------------------------------------

SANITIZE = ("-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=all")


def _sanitized_outputs(model: bytes, samples, folder):
    graph = run_pipeline(read_tflite(model, "test model"))
    write_output(compile_graph(graph, "m", "test model"), folder)
    exe = build_host_program(folder, "m", extra_flags=SANITIZE)
    return run_host_program(exe, samples, [(graph.type_of(n).dtype.numpy, graph.type_of(n).shape)
                                           for n in graph.outputs])


@pytest.mark.parametrize("case", ["rfft16", "rfft32", "auto_scale", "pcan", "subtraction", "front_end"])
def test_kernels_are_clean_under_sanitizers(case, tmp_path, monkeypatch):
    """Full-scale and wrapping inputs, the widest shifts and hostile coefficients under ASan and UBSan: no
    finding, and TFLite Micro's outputs over consecutive invokes."""
    monkeypatch.setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0")
    model, samples = {
        "rfft16": lambda: (rfft_model(256, (2, 200)), [[extremes((2, 200), "int16", s)] for s in range(2)]),
        "rfft32": lambda: (rfft_model(64, (64,), "int32"), [[extremes((64,), "int32", s)] for s in range(2)]),
        "auto_scale": lambda: (fft_auto_scale_model(64), [[f] for f in scaled_frames(64, 2)]),
        "pcan": lambda: (pcan_model(40, 63, pcan_lut(4)), [[wide_uint32((40,), 1), wide_uint32((40,), 2)]]),
        "subtraction": lambda: (spectral_subtraction_model(16, smoothing=-1, one_minus_smoothing=-1,
                                                           smoothing_bits=31, spectral_subtraction_bits=63),
                                subtraction_invokes(16, 5, 3)),
        "front_end": lambda: (front_end_model(), tone_frames(3, hz=2000.0, seed=1)),
    }[case]()
    got = _sanitized_outputs(model, samples, tmp_path)
    graph = read_tflite(model, "m")
    for ours, theirs in zip(got, tflm_invokes(model, samples, len(graph.outputs))):
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a, np.asarray(b).reshape(a.shape))


def test_square_root_shift_out_of_range_is_defined(tmp_path, monkeypatch):
    """scale_bits outside [0, 31] (a shift TFLite Micro leaves undefined) runs clean under UBSan and gives 0."""
    monkeypatch.setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0")
    samples = [[wide_uint64((8,), 0), np.array(bits, np.int32)] for bits in (32, -1, 2 ** 31 - 1)]
    for (out,) in _sanitized_outputs(square_root_model(8), samples, tmp_path):
        assert not out.any()


@pytest.mark.parametrize("code, inputs, outputs", [
    ("SignalWindow", 2, 1), ("SignalFftAutoScale", 1, 2), ("SignalRfft", 1, 1), ("SignalEnergy", 1, 1),
    ("SignalFilterBank", 6, 1), ("SignalFilterBankSquareRoot", 2, 1), ("SignalFilterBankSpectralSubtraction", 1, 2),
    ("SignalPCAN", 3, 1), ("SignalFilterBankLog", 1, 1)])
def test_absent_inputs_are_refused_in_one_line(code, inputs, outputs):
    """Every input index -1: one line from the converter or the op, never a crash."""
    b = TFLiteBuilder()
    names = [b.tensor(f"y{k}", (8,), "uint32") for k in range(outputs)]
    options = {"T": 7, "fft_length": 8, "start_index": 0, "end_index": 4, "num_channels": 8, "shift": 1,
               "snr_shift": 1, "output_scale": 1, "input_correction_bits": 0, "clamping": False,
               "smoothing": 1, "one_minus_smoothing": 1, "alternate_smoothing": 1, "alternate_one_minus_smoothing": 1,
               "min_signal_remaining": 1, "smoothing_bits": 1, "spectral_subtraction_bits": 1}
    b.custom_op(code, [None] * inputs, names, **options)
    with pytest.raises(CompileError) as info:
        lower(run_pipeline(read_tflite(b.inputs().outputs(*names).build(), "m")))
    assert "\n" not in str(info.value)
