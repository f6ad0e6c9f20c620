"""Arena groups on the host: two models compiled with one --arena-group share one arena of the larger one's size,
each computes what TFLite Micro computes when they run one after another in any order, a model of the group
called while another runs returns MR_ERR_BUSY (unless NDEBUG), and the generated files build warning-free.

The group is the keyword-spotting example (conv, depthwise, pooling, dense, softmax) and the sine example (three
dense layers): two arenas of very different sizes.

The run while another runs is made in this test only: kws.c is compiled with -Dmr_avg_pool2d_s8=test_avg_pool2d_s8,
so its pooling layer goes to a wrapper that calls sine_invoke() before running the real kernel.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from micro_relay.bench.measure import seeded_inputs
from micro_relay.cli import main
from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.examples.kws_model import build_kws_model
from micro_relay.examples.sine_model import build_sine_model
from support.c_harness import STRICT_FLAGS
from support.tflm_oracle import tflm_run

MODELS = ("kws", "sine")

# argv[1] is the order, e.g. "ksk": for each letter the model's inputs are read from stdin, it runs, its status
# and then its outputs are written.
MAIN = r"""
#include <stdio.h>
#include "kws.h"
#include "sine.h"

static int run(int (*invoke)(void), void *(*input)(int), size_t (*input_size)(int), const void *(*output)(int),
               size_t (*output_size)(int), int inputs, int outputs)
{
    int i;
    int status;
    for (i = 0; i < inputs; ++i) {
        if (fread(input(i), 1, input_size(i), stdin) != input_size(i)) {
            return 1;
        }
    }
    status = invoke();
    fputc(status, stdout);
    for (i = 0; i < outputs; ++i) {
        fwrite(output(i), 1, output_size(i), stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *order = argc > 1 ? argv[1] : "";
    for (; *order; ++order) {
        const int failed = *order == 'k'
            ? run(kws_invoke, kws_input, kws_input_size, kws_output, kws_output_size, KWS_NUM_INPUTS, KWS_NUM_OUTPUTS)
            : run(sine_invoke, sine_input, sine_input_size, sine_output, sine_output_size, SINE_NUM_INPUTS,
                  SINE_NUM_OUTPUTS);
        if (failed) {
            return 2;
        }
    }
    return 0;
}
"""

WRAPPER = r"""
#include <stdio.h>
#include "micro_relay/avg_pool2d.h"
#include "sine.h"

int test_avg_pool2d_s8(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out);

/* sine_invoke() while kws runs (its status printed), then the real kernel. */
int test_avg_pool2d_s8(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out)
{
    printf("inner %d\n", sine_invoke());
    return mr_avg_pool2d_s8(p, in, out);
}
"""

WRAPPER_MAIN = r"""
#include <stdio.h>
#include "kws.h"
#include "sine.h"

int main(void)
{
    printf("outer %d\n", kws_invoke());
    printf("after %d\n", sine_invoke());
    return 0;
}
"""


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("group")
    (folder / "kws.tflite").write_bytes(build_kws_model())
    (folder / "sine.tflite").write_bytes(build_sine_model())
    return folder


@pytest.fixture(scope="module")
def grouped(models):
    out = models / "out"
    assert main(["compile", str(models / "kws.tflite"), str(models / "sine.tflite"), "-o", str(out),
                 "--arena-group", "audio"]) == 0
    return out


def _build(out: Path, exe: Path, extra=(), cc="gcc", opt="-O1", main_c=MAIN, skip=()):
    (out / "group_main.c").write_text(main_c)
    sources = [str(p) for p in sorted(out.glob("*.c")) if p.name not in skip and p.name != "group_wrapper.c"]
    command = [cc, *STRICT_FLAGS, opt, *extra, "-I", str(out), *sources, "-o", str(exe), "-lm"]
    built = subprocess.run(command, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    return exe


def test_the_group_arena_is_the_largest_members(models, grouped):
    """The members' plans are the ones they get compiled alone, and the group's arena is the larger of them."""
    alone = {}
    for name in MODELS:
        path = models / f"{name}.tflite"
        alone[name] = compile_graph(prepare_graph(path), name, path.name).plan.arena_bytes
        plan = json.loads((grouped / f"{name}.plan.json").read_text())
        assert plan["arena_bytes"] == alone[name] and plan["arena_group"] == "audio"
    header = (grouped / "audio_arena.h").read_text()
    assert f"#define AUDIO_ARENA_SIZE {max(alone.values())}\n" in header
    assert alone["kws"] > 100 * alone["sine"]  # two very different arenas: the group is the larger, not the sum
    for name in MODELS:  # no member has an arena of its own
        assert f"{name}_arena[" not in (grouped / f"{name}.c").read_text()


@pytest.mark.parametrize("order", ["ks", "sk", "kssk", "skks"])
def test_each_member_is_bit_exact_in_the_shared_arena_in_any_order(models, grouped, tmp_path, order):
    exe = _build(grouped, tmp_path / "group")
    graphs = {name: prepare_graph(models / f"{name}.tflite") for name in MODELS}
    samples = [(name, seeded_inputs(graphs[name], seed)) for seed, name in
               enumerate({"k": "kws", "s": "sine"}[c] for c in order)]
    stdin = b"".join(np.ascontiguousarray(x).tobytes() for _, inputs in samples for x in inputs)
    result = subprocess.run([str(exe), order], input=stdin, capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    data, pos = result.stdout, 0
    for name, inputs in samples:
        assert data[pos] == 0, f"{name}_invoke returned {data[pos]}"
        pos += 1
        for want in tflm_run((models / f"{name}.tflite").read_bytes(), inputs):
            got = np.frombuffer(data[pos:pos + want.nbytes], dtype=want.dtype)
            np.testing.assert_array_equal(got, want.reshape(-1), err_msg=f"{name} in order {order}")
            pos += want.nbytes
    assert pos == len(data)


def _wrapped(grouped: Path, tmp_path: Path, defines=()) -> list[str]:
    out = tmp_path / "wrapped"
    subprocess.run(["cp", "-r", str(grouped), str(out)], check=True)
    (out / "group_wrapper.c").write_text(WRAPPER)
    obj = out / "kws.o"
    subprocess.run(["gcc", *STRICT_FLAGS, "-O1", *defines, "-I", str(out), "-c", str(out / "kws.c"),
                    "-Dmr_avg_pool2d_s8=test_avg_pool2d_s8", "-o", str(obj)], check=True, capture_output=True)
    exe = _build(out, out / "wrapped", (*defines, str(out / "group_wrapper.c"), str(obj)), main_c=WRAPPER_MAIN,
                 skip=("kws.c",))
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split("\n")[:3]


def test_a_member_called_while_another_runs_is_refused(grouped, tmp_path):
    """sine_invoke() during kws_invoke(): MR_ERR_BUSY (8); kws itself completes, and sine runs once kws is done."""
    assert _wrapped(grouped, tmp_path) == ["inner 8", "outer 0", "after 0"]


def test_the_group_fails_to_build_when_its_arena_is_too_small(grouped, tmp_path):
    out = tmp_path / "small"
    subprocess.run(["cp", "-r", str(grouped), str(out)], check=True)
    header = out / "audio_arena.h"
    size = int(header.read_text().split("#define AUDIO_ARENA_SIZE ")[1].split()[0])
    header.write_text(header.read_text().replace(f"#define AUDIO_ARENA_SIZE {size}",
                                                 f"#define AUDIO_ARENA_SIZE {size - 16}"))
    built = subprocess.run(["gcc", *STRICT_FLAGS, "-I", str(out), "-c", str(out / "kws.c"), "-o",
                            str(tmp_path / "kws.o")], capture_output=True, text=True)
    assert built.returncode != 0 and "kws_fits_audio_arena" in built.stderr


@pytest.mark.parametrize("cc, opt, ndebug", [("gcc", "-O0", False), ("gcc", "-Os", True), ("clang", "-O0", True),
                                             ("clang", "-O2", False)])
def test_the_group_builds_warning_free(grouped, tmp_path, cc, opt, ndebug):
    _build(grouped, tmp_path / "group", ("-DNDEBUG",) if ndebug else (), cc=cc, opt=opt)


@pytest.mark.parametrize("argv, says", [
    (["--name", "x"], "--name names one model"),
    (["--arena-group", "kws"], "would write the same files"),
    (["--arena-group", "sine_arena"], "starts with the model name 'sine_'"),
    (["--arena-group", "2bad"], "not a C identifier"),
])
def test_bad_group_options_are_refused_before_any_file(models, tmp_path, capsys, argv, says):
    out = tmp_path / "out"
    assert main(["compile", str(models / "kws.tflite"), str(models / "sine.tflite"), "-o", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_two_models_of_one_name_are_refused(models, tmp_path, capsys):
    other = tmp_path / "again"
    other.mkdir()
    (other / "kws.tflite").write_bytes(build_kws_model())
    assert main(["compile", str(models / "kws.tflite"), str(other / "kws.tflite"), "-o", str(tmp_path / "out")]) == 2
    assert "both be named 'kws'" in capsys.readouterr().err and not (tmp_path / "out").exists()
