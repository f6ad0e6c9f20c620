"""Compiled models are clean under AddressSanitizer and UndefinedBehaviorSanitizer: the project's own models (and,
when the reference models folder is present, the shared int8 models) compiled to C, built on the host with
-fsanitize=address,undefined -fno-sanitize-recover=all (any finding ends the program with an error), run on random
inputs. The sanitized program must exit cleanly and give the unsanitized build's outputs, which are TFLite Micro's."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import shared_model
from support.c_harness import build_host_program, run_host_program
from support.model_check import random_inputs
from support.tflite_models import (binary_model, conv2d_model, depthwise_model, mean_model, pad_model,
                                   transpose_conv_model)
from support.tflm_oracle import tflm_run
from micro_relay.compiler import compile_graph, prepare_graph, write_output
from micro_relay.examples.kws_model import build_kws_model
from micro_relay.examples.sine_model import build_sine_model

SANITIZE = ("-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=all")
# LeakSanitizer needs ptrace, which containers often refuse; the generated code never allocates anyway.
SANITIZER_ENV = {"ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0", "UBSAN_OPTIONS": "print_stacktrace=1"}
SAMPLES = 4

OWN_MODELS = {
    "kws_example": build_kws_model,
    "sine_example": build_sine_model,
    "conv_stride2_same": lambda: conv2d_model(input_shape=(1, 9, 7, 3), out_channels=5, kernel=(3, 3),
                                              stride=(2, 2), padding="SAME", in_zp=-3, out_zp=4, seed=5),
    "conv_int16": lambda: conv2d_model(dtype="int16", input_shape=(1, 6, 6, 2), out_channels=3, seed=6),
    "depthwise_multiplier2": lambda: depthwise_model(input_shape=(1, 7, 7, 3), depth_multiplier=2, seed=7),
    "transpose_conv": lambda: transpose_conv_model(seed=8),
    "add_broadcast": lambda: binary_model(shape1=(1, 4, 4, 3), shape2=(1, 1, 1, 3)),
    "mean": lambda: mean_model(),
    "pad": lambda: pad_model(),
}
SHARED_INT8_MODELS = (
    "tflite_micro/hello_world_int8.tflite",
    "tflite_micro/micro_speech_quantized.tflite",
    "tflite_micro/person_detect.tflite",
    "mlcommons_tiny/kws_ref_model.tflite",
    "mlcommons_tiny/ad01_int8.tflite",
    "mlcommons_tiny/pretrainedResnet_quant.tflite",
)


def _sanitizers_work(tmp: Path) -> bool:
    cc = shutil.which("gcc")
    if cc is None:
        return False
    probe = tmp / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    built = subprocess.run([cc, *SANITIZE, str(probe), "-o", str(tmp / "probe")], capture_output=True)
    return built.returncode == 0 and subprocess.run([str(tmp / "probe")], env={**os.environ, **SANITIZER_ENV}).returncode == 0


@pytest.fixture(scope="module")
def sanitizers(tmp_path_factory):
    if not _sanitizers_work(tmp_path_factory.mktemp("probe")):
        pytest.skip("gcc with AddressSanitizer and UBSan (libasan, libubsan) is not available")


def test_sanitized_build_stops_on_undefined_behaviour_and_bad_reads(sanitizers, tmp_path):
    """The control: with these flags a signed overflow and an out-of-bounds read each end the program with an
    error, so a clean exit below means the sanitizers found nothing."""
    cases = {"overflow": "int main(int argc, char **argv) { volatile int x = 2147483647; (void)argv; "
                         "return x + argc < 0; }\n",
             "out_of_bounds": "int main(int argc, char **argv) { static const signed char a[4] = {1, 2, 3, 4}; "
                              "(void)argv; return a[argc + 3]; }\n"}
    for name, text in cases.items():
        source = tmp_path / f"{name}.c"
        source.write_text(text)
        subprocess.run(["gcc", *SANITIZE, str(source), "-o", str(tmp_path / name)], check=True, capture_output=True)
        run = subprocess.run([str(tmp_path / name)], env={**os.environ, **SANITIZER_ENV}, capture_output=True,
                             text=True)
        assert run.returncode != 0 and ("runtime error" in run.stderr or "AddressSanitizer" in run.stderr), name


def _run_sanitized(exe: Path, samples, output_types):
    """run_host_program with the sanitizers' options; their reports go to stderr and fail the run."""
    saved = {k: os.environ.get(k) for k in SANITIZER_ENV}
    os.environ.update(SANITIZER_ENV)
    try:
        return run_host_program(exe, samples, output_types)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _check(model_bytes: bytes, tmp_path: Path, seed: int) -> None:
    path = tmp_path / "model.tflite"
    path.write_bytes(model_bytes)
    graph = prepare_graph(path)
    out = tmp_path / "out"
    write_output(compile_graph(graph, "model", path.name), out)
    rng = np.random.default_rng(seed)
    samples = [random_inputs(graph, rng) for _ in range(SAMPLES)]
    output_types = [(graph.type_of(n).dtype.numpy, graph.type_of(n).shape) for n in graph.outputs]
    plain = build_host_program(out, "model").rename(out / "plain")
    sanitized = build_host_program(out, "model", extra_flags=SANITIZE)
    with_sanitizers = _run_sanitized(sanitized, samples, output_types)
    without = run_host_program(plain, samples, output_types)
    for index, (sample, ours, theirs) in enumerate(zip(samples, with_sanitizers, without)):
        expected = tflm_run(model_bytes, [x.copy() for x in sample], len(graph.outputs))
        for k, (a, b, t) in enumerate(zip(ours, theirs, expected)):
            np.testing.assert_array_equal(a, b, err_msg=f"sanitized vs plain build, sample {index} output {k}")
            np.testing.assert_array_equal(a, np.asarray(t).reshape(a.shape),
                                          err_msg=f"sanitized build vs TFLite Micro, sample {index} output {k}")


@pytest.mark.parametrize("name", sorted(OWN_MODELS))
def test_own_model_is_clean_under_asan_and_ubsan(sanitizers, tmp_path, name):
    _check(OWN_MODELS[name](), tmp_path, seed=sorted(OWN_MODELS).index(name))


@pytest.mark.parametrize("relative", SHARED_INT8_MODELS, ids=[Path(m).stem for m in SHARED_INT8_MODELS])
def test_shared_int8_model_is_clean_under_asan_and_ubsan(sanitizers, tmp_path, relative):
    _check(shared_model(relative).read_bytes(), tmp_path, seed=len(relative))
