"""The debug build (--debug-guards) on the host with gcc: it computes what TFLite Micro computes, a kernel that
writes one byte past its output is caught after its layer and named by NAME_failed_layer_of, and a build without
the flag has none of the guard code.

The out-of-bounds kernel exists only in this test: NAME.c is compiled with -Dmr_avg_pool2d_s8=... so its one
average-pool call goes to a wrapper that runs the real kernel and then writes past the output (OVERRUN set) or
not. No runtime source and no generated file contains it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from micro_relay.bench.measure import seeded_inputs
from micro_relay.compiler import compile_graph, prepare_graph, write_output
from micro_relay.examples.kws_model import build_kws_model
from support.c_harness import STRICT_FLAGS, build_host_program, run_host_program
from support.tflm_oracle import tflm_run

NAME = "kws"

WRAPPER = r"""
#include "micro_relay/avg_pool2d.h"

int test_avg_pool2d_s8(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out);

/* The real kernel, then (with OVERRUN) one byte written OVERRUN - 1 bytes past the end of its output. */
int test_avg_pool2d_s8(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out)
{
    const int status = mr_avg_pool2d_s8(p, in, out);
#ifdef OVERRUN
    out[p->batches * p->out_h * p->out_w * p->channels + OVERRUN - 1] = 0x11;
#endif
    return status;
}
"""

MAIN = r"""
#include <stdio.h>
#include "kws.h"

int main(void)
{
    const int status = kws_invoke();
    printf("%d %d\n", status, (int)kws_failed_layer());
    return 0;
}
"""


@pytest.fixture(scope="module")
def kws_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "kws.tflite"
    path.write_bytes(build_kws_model())
    return path


def _compile(model_path: Path, out: Path, debug_guards: bool):
    model = compile_graph(prepare_graph(model_path), NAME, model_path.name, debug_guards=debug_guards)
    write_output(model, out)
    return model


def test_without_the_flag_there_is_no_guard_code(kws_model, tmp_path):
    release = _compile(kws_model, tmp_path / "release", False)
    default = compile_graph(prepare_graph(kws_model), NAME, kws_model.name)
    assert release.files == default.files
    assert "guard" not in release.kernels and not release.plan.guards
    for text in release.files.values():
        assert "guard" not in text.lower() and "failed_layer" not in text


def test_guard_build_computes_what_tflite_micro_computes(kws_model, tmp_path):
    model = _compile(kws_model, tmp_path, True)
    inputs = seeded_inputs(model.graph, 3)
    exe = build_host_program(tmp_path, NAME, extra_flags=("-O1",))
    out_type = model.graph.type_of(model.graph.outputs[0])
    (got,), = run_host_program(exe, [inputs], [(out_type.dtype.numpy, out_type.shape)])
    (want,) = tflm_run(kws_model.read_bytes(), inputs)
    np.testing.assert_array_equal(got, want.reshape(got.shape))


def _run_with_wrapper(out: Path, overrun: int | None) -> tuple[int, int]:
    (out / "test_wrapper.c").write_text(WRAPPER)
    (out / "test_main.c").write_text(MAIN)
    exe = out / f"guarded_{overrun}"
    sources = [str(p) for p in sorted(out.glob("*.c")) if p.name not in (f"{NAME}.c", "test_wrapper.c")]
    defines = [] if overrun is None else [f"-DOVERRUN={overrun}"]
    # the renaming define reaches NAME.c only, the wrapper calls the real kernel
    command = ["gcc", *STRICT_FLAGS, "-O1", "-I", str(out), "-c", str(out / f"{NAME}.c"),
               "-Dmr_avg_pool2d_s8=test_avg_pool2d_s8", "-o", str(out / f"{NAME}.o")]
    subprocess.run(command, check=True, capture_output=True, text=True)
    command = ["gcc", *STRICT_FLAGS, "-O1", *defines, "-I", str(out), *sources, str(out / "test_wrapper.c"),
               str(out / f"{NAME}.o"), "-o", str(exe), "-lm"]
    built = subprocess.run(command, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    status, layer = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    return int(status), int(layer)


@pytest.mark.parametrize("overrun", [1, 8])
def test_a_write_past_the_output_is_caught_and_named(kws_model, tmp_path, overrun):
    """One byte just past the average pool's output (1), or the last byte of its canary (8): MR_ERR_GUARD (6)
    at the average pool's step, and no later layer ran."""
    model = _compile(kws_model, tmp_path, True)
    pool_step = next(s for s, i in enumerate(model.plan.order) if model.graph.nodes[i].op == "nn.avg_pool2d")
    assert _run_with_wrapper(tmp_path, overrun) == (6, pool_step)


def test_the_wrapper_alone_passes(kws_model, tmp_path):
    """The same build without the overrun: MR_OK and no failed layer, so the wrapper itself trips nothing."""
    _compile(kws_model, tmp_path, True)
    assert _run_with_wrapper(tmp_path, None) == (0, -1)


def test_guard_build_of_a_model_with_state_over_invokes(tmp_path):
    """The shared MNIST LSTM (its h and c states outside the arena) built with guards: three consecutive invokes
    give TFLite Micro's three, so the guard calls sit inside NAME_invoke_with_state too and trip nothing."""
    from conftest import shared_model
    from support.tflm_oracle import tflm_invokes

    path = shared_model("tflite_micro/trained_lstm_int8.tflite")
    model = compile_graph(prepare_graph(path), "mnist_lstm", path.name, debug_guards=True)
    write_output(model, tmp_path)
    assert "mr_guard_check" in model.files["mnist_lstm.c"] and model.plan.state
    samples = [seeded_inputs(model.graph, seed) for seed in (1, 2, 3)]
    exe = build_host_program(tmp_path, "mnist_lstm", extra_flags=("-O1",))
    out_type = model.graph.type_of(model.graph.outputs[0])
    got = run_host_program(exe, samples, [(out_type.dtype.numpy, out_type.shape)])
    want = tflm_invokes(path.read_bytes(), samples, 1)
    for (g,), (w,) in zip(got, want):
        np.testing.assert_array_equal(g, w.reshape(g.shape))


@pytest.mark.parametrize("cc, opt", [("gcc", "-O0"), ("gcc", "-Os"), ("clang", "-O0"), ("clang", "-O2")])
def test_guard_build_is_warning_free(kws_model, tmp_path, cc, opt):
    import shutil

    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    _compile(kws_model, tmp_path, True)
    for source in (f"{NAME}.c", "mr_guard.c"):
        built = subprocess.run([cc, *STRICT_FLAGS, opt, "-I", str(tmp_path), "-c", str(tmp_path / source), "-o",
                                str(tmp_path / f"{source}.o")], capture_output=True, text=True)
        assert built.returncode == 0, built.stderr[-2000:]
