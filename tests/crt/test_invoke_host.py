"""The runtime's C ABI on the host: kernel status, the generated invoke's status checks, the ABI version check,
NAME_invoke_with from two threads on two arenas, and the runtime's lack of static mutable state.

The model is the kws example (micro_relay.examples.kws_model: conv, four depthwise + pointwise blocks,
average pool, dense, softmax); its outputs are checked against TFLite Micro's interpreter.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from support.c_harness import STRICT_FLAGS
from support.tflm_oracle import tflm_run
from micro_relay.codegen.emit import crt_abi_version
from micro_relay.compiler import CRT_DIR, compile_graph, prepare_graph, runtime_files, write_output
from micro_relay.examples.kws_model import build_kws_model

HEADERS = sorted((CRT_DIR / "include" / "micro_relay").glob("*.h")) + sorted((CRT_DIR / "cmsis_nn").glob("*.h"))
SOURCES = sorted((CRT_DIR / "src").glob("*.c"))
_PROTOTYPE = re.compile(r"^(?!static|typedef|#|\s)([A-Za-z_][\w\s\*]*?)\s*\b(mr_\w+)\(", re.MULTILINE)


@pytest.fixture(scope="module")
def kws(tmp_path_factory):
    """(the kws example's TFLite bytes, its compiled model, an output folder without the runtime)."""
    folder = tmp_path_factory.mktemp("kws")
    path = folder / "kws.tflite"
    path.write_bytes(build_kws_model())
    model = compile_graph(prepare_graph(path), "kws", path.name)
    out = folder / "out"
    write_output(model, out, with_runtime=False)
    return path.read_bytes(), model, out


def _with_runtime(model, out: Path, crt_h: str | None = None) -> Path:
    """A copy of `out` with the runtime beside it, as a separately built runtime would be; crt_h replaces
    micro_relay/crt.h's text."""
    target = out.parent / f"{out.name}-runtime-{len(list(out.parent.iterdir()))}"
    shutil.copytree(out, target)
    for rel, source in runtime_files(model.kernels, model.adapters).items():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_bytes(source.read_bytes())
    if crt_h is not None:
        (target / "micro_relay" / "crt.h").write_text(crt_h)
    return target


def _build(cc: str, folder: Path, main: str, extra=(), model_flags=()) -> Path:
    """folder's runtime sources, NAME.c (with model_flags) and `main`, linked into one host program."""
    (folder / "main.c").write_text(main)
    objects = []
    for source in sorted(folder.glob("*.c")):
        flags = model_flags if source.name == "kws.c" else ()
        obj = source.with_suffix(".o")
        command = [cc, *STRICT_FLAGS, "-O2", *extra, *flags, "-I", str(folder), "-c", str(source), "-o", str(obj)]
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, f"{source.name}:\n{result.stderr[-3000:]}"
        objects.append(str(obj))
    exe = folder / "program"
    result = subprocess.run([cc, *extra, *objects, "-o", str(exe), "-lm"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return exe


def _inputs(count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [rng.integers(-128, 128, (1, 49, 10, 1), dtype=np.int64).astype(np.int8) for _ in range(count)]


def test_every_kernel_entry_point_returns_an_int_status():
    """Every kernel a runtime or adapter header declares returns int, and no source defines a void one. The
    layout functions (the scratch sizes the compiler plans, tests/kernels/test_layouts.py) return sizes, and
    the weights' checksum its CRC."""
    declared = {}
    for header in HEADERS:
        for ret, name in _PROTOTYPE.findall(header.read_text()):
            declared[name] = " ".join(ret.split())
    layouts = {name: ret for name, ret in declared.items() if name.endswith(("_scratch_bytes", "_tile_pixels",
                                                                               "_kept_rows"))}
    # mr_crc32 (crc32.h) is no kernel: NAME_verify's checksum, it returns the CRC (mr_verify_spans the status)
    assert declared.pop("mr_crc32") == "uint32_t" and declared["mr_verify_spans"] == "int"
    kernels = {name: ret for name, ret in declared.items() if name not in layouts}
    assert len(kernels) > 80 and "mr_conv2d_s8_portable" in kernels and "mr_dense_s8_portable" in kernels
    assert {name: ret for name, ret in kernels.items() if ret != "int"} == {}
    assert len(layouts) == 4 and set(layouts.values()) == {"int32_t"}
    for source in SOURCES + sorted((CRT_DIR / "cmsis_nn").glob("*.c")):
        assert not re.search(r"^\s*void (mr_\w+|NAME|name)\(", source.read_text(), re.MULTILINE), source.name


def test_status_codes_are_defined_once_in_crt_h():
    crt_h = (CRT_DIR / "include" / "micro_relay" / "crt.h").read_text()
    codes = dict(re.findall(r"^#define (MR_OK|MR_ERR_\w+) (\d+)$", crt_h, re.MULTILINE))
    assert codes["MR_OK"] == "0" and {"MR_ERR_SCRATCH", "MR_ERR_CMSIS_NN", "MR_ERR_ARENA"} <= codes.keys()
    assert len(set(codes.values())) == len(codes), "two codes share a value"
    for path in [*HEADERS, *SOURCES, *sorted((CRT_DIR / "cmsis_nn").glob("*.c"))]:
        if path.name != "crt.h":
            assert not re.search(r"#define (MR_OK|MR_ERR_\w+)\b", path.read_text()), path.name


@pytest.mark.parametrize("target", ["host", "cortex-m4"])
def test_runtime_keeps_no_static_mutable_state(tmp_path, target):
    """No runtime object defines data or bss (only read-only tables), for the host and for the DSP build:
    kernels can run in several threads at once."""
    cc, nm = ("gcc", "nm") if target == "host" else ("arm-none-eabi-gcc", "arm-none-eabi-nm")
    if shutil.which(cc) is None or shutil.which(nm) is None:
        pytest.skip(f"{cc} is not on PATH")
    flags = ["-O2"] if target == "host" else ["-Os", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                                              "-mfpu=fpv4-sp-d16"]
    writable = {}
    for source in SOURCES:
        obj = tmp_path / f"{source.stem}.o"
        subprocess.run([cc, *STRICT_FLAGS, *flags, "-I", str(CRT_DIR / "include"), "-c", str(source), "-o", str(obj)],
                       check=True)
        symbols = subprocess.run([nm, "--defined-only", str(obj)], capture_output=True, text=True, check=True).stdout
        found = [line.split()[-1] for line in symbols.splitlines() if line.split()[-2] in "bBdDCgGsS"]
        if found:
            writable[source.name] = found
    assert writable == {}


def test_generated_source_checks_the_runtime_abi_version(kws):
    _, model, _ = kws
    version = int(re.search(r"^#define MR_CRT_ABI_VERSION (\d+)$",
                            (CRT_DIR / "include" / "micro_relay" / "crt.h").read_text(), re.MULTILINE).group(1))
    assert crt_abi_version() == version
    source = model.files["kws.c"]
    assert f"#elif MR_CRT_ABI_VERSION != {version}\n" in source and "MR_TRY(mr_conv2d_s8_portable(" in source


@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.parametrize("runtime", ["none", "later"])
def test_a_runtime_of_another_abi_stops_the_build_with_both_versions(kws, cc, runtime):
    """--no-runtime output built against a separately built runtime of another ABI: one #error, naming the
    version kws.c needs and the runtime's (a runtime from before versions defines none: version 1; a later one
    is named by the #pragma message before the #error)."""
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not on PATH")
    _, model, out = kws
    version = crt_abi_version()
    crt_h = (CRT_DIR / "include" / "micro_relay" / "crt.h").read_text()
    line = f"#define MR_CRT_ABI_VERSION {version}\n"
    assert line in crt_h
    later = version + 3
    folder = _with_runtime(model, out, crt_h.replace(line, "" if runtime == "none" else
                                                     f"#define MR_CRT_ABI_VERSION {later}\n"))
    result = subprocess.run([cc, *STRICT_FLAGS, "-I", str(folder), "-c", str(folder / "kws.c"), "-o",
                             str(folder / "kws.o")], capture_output=True, text=True)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if re.search(r": (fatal )?error: ", line)]
    assert len(errors) == 1, result.stderr  # the #error (GCC writes "error: #error ...", clang "error: ...")
    assert f"kws.c needs C runtime ABI version {version}; micro_relay/crt.h is" in errors[0]
    if runtime == "none":
        assert "micro_relay/crt.h is version 1 (it defines no MR_CRT_ABI_VERSION)" in errors[0]
    else:
        assert f"micro_relay/crt.h: MR_CRT_ABI_VERSION {later}" in result.stderr


STOP_MAIN = r"""
#include <stdio.h>
#include <string.h>
#include "kws.h"
#include "micro_relay/avg_pool2d.h"
#include "micro_relay/dense.h"

static int pools, denses;

/* kws.c calls these in place of mr_avg_pool2d_s8 and mr_dense_s8 (-D on kws.c only) */
int failing_pool(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out);
int counted_dense(const mr_dense_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out);

int failing_pool(const mr_avg_pool2d_q_params *p, const int8_t *in, int8_t *out)
{
    ++pools;
    return POOL_STATUS != 0 ? POOL_STATUS : mr_avg_pool2d_s8(p, in, out);
}

int counted_dense(const mr_dense_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out)
{
    ++denses;
    return mr_dense_s8(p, in, w, bias, out);
}

int main(void)
{
    static uint8_t arena[KWS_ARENA_SIZE + 16] MR_ALIGNED(16);
    int status;
    memset(kws_input_of(arena, 0), 3, KWS_INPUT0_BYTES);
    status = kws_invoke_with(arena);
    printf("%d %d %d %d %d", status, pools, denses, kws_invoke_with(NULL), kws_invoke_with(arena + 4));
    printf(" %d %d\n", kws_input_of(NULL, 0) == NULL, kws_input_of(arena, 1) == NULL);
    return 0;
}
"""


@pytest.mark.parametrize("pool_status", [0, 7])
def test_invoke_returns_the_first_failing_status_and_runs_no_later_layer(host_cc, kws, tmp_path, pool_status):
    """A layer returning nonzero (here the pool, through a stand-in) ends the invoke with its status: the dense
    layer after it never runs. A NULL or misaligned arena is MR_ERR_ARENA before any layer runs."""
    _, model, out = kws
    folder = _with_runtime(model, out)
    exe = _build(host_cc, folder, STOP_MAIN, extra=(f"-DPOOL_STATUS={pool_status}",),
                 model_flags=("-Dmr_avg_pool2d_s8=failing_pool", "-Dmr_dense_s8_portable=counted_dense"))
    said = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    arena_error = int(re.search(r"^#define MR_ERR_ARENA (\d+)$", (CRT_DIR / "include" / "micro_relay" / "crt.h")
                                .read_text(), re.MULTILINE).group(1))
    assert said == [str(pool_status), "1", "0" if pool_status else "1", str(arena_error), str(arena_error), "1", "1"]


THREADS_MAIN = r"""
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "kws.h"

#define SAMPLES 6
#define ROUNDS 40

static int8_t inputs[SAMPLES][KWS_INPUT0_BYTES];
static int8_t expected[SAMPLES][KWS_OUTPUT0_BYTES];
static uint8_t arenas[2][KWS_ARENA_SIZE] MR_ALIGNED(KWS_ARENA_ALIGN);
static pthread_barrier_t start;

static void *run(void *arg)
{
    const int t = *(const int *)arg;
    uint8_t *arena = arenas[t];
    long wrong = 0;
    int r;
    pthread_barrier_wait(&start);
    for (r = 0; r < ROUNDS; ++r) {
        const int k = (r * (t + 1) + t) % SAMPLES;
        memcpy(kws_input_of(arena, 0), inputs[k], KWS_INPUT0_BYTES);
        if (kws_invoke_with(arena) != 0 || memcmp(kws_output_of(arena, 0), expected[k], KWS_OUTPUT0_BYTES) != 0) {
            ++wrong;
        }
    }
    return (void *)wrong;
}

int main(void)
{
    pthread_t threads[2];
    int ids[2] = {0, 1}, k, t;
    long wrong = 0;
    if (fread(inputs, 1, sizeof inputs, stdin) != sizeof inputs) {
        return 2;
    }
    for (k = 0; k < SAMPLES; ++k) { /* sequential runs, on the static arena */
        memcpy(kws_input(0), inputs[k], KWS_INPUT0_BYTES);
        if (kws_invoke() != 0) {
            return 3;
        }
        memcpy(expected[k], kws_output(0), KWS_OUTPUT0_BYTES);
    }
    pthread_barrier_init(&start, NULL, 2);
    for (t = 0; t < 2; ++t) {
        pthread_create(&threads[t], NULL, run, &ids[t]);
    }
    for (t = 0; t < 2; ++t) {
        void *result;
        pthread_join(threads[t], &result);
        wrong += (long)result;
    }
    fwrite(expected, 1, sizeof expected, stdout);
    fprintf(stderr, "wrong %ld\n", wrong);
    return wrong != 0;
}
"""


@pytest.mark.parametrize("sanitizer", ["none", "thread"])
def test_two_threads_on_two_arenas_give_the_sequential_outputs(host_cc, kws, sanitizer):
    """kws_invoke_with from two threads at once, each on its own arena, 40 runs each over six inputs: every
    output equals the sequential run's, which equals TFLite Micro's. Under ThreadSanitizer the runs also show no
    data race (nothing in the invoke path is shared but read-only weights)."""
    model_bytes, model, out = kws
    extra = ("-pthread",) + (("-fsanitize=thread", "-g") if sanitizer == "thread" else ())
    if sanitizer == "thread":
        probe = subprocess.run([host_cc, "-fsanitize=thread", "-x", "c", "-", "-o", "/dev/null"],
                               input="int main(void) { return 0; }\n", capture_output=True, text=True)
        if probe.returncode != 0:
            pytest.skip("ThreadSanitizer is not available to gcc here")
    folder = _with_runtime(model, out)
    exe = _build(host_cc, folder, THREADS_MAIN.replace("#include <pthread.h>", "#define _POSIX_C_SOURCE 200809L\n"
                                                       "#include <pthread.h>"), extra=extra)
    inputs = _inputs(6)
    result = subprocess.run([str(exe)], input=b"".join(x.tobytes() for x in inputs), capture_output=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-3000:]
    assert b"wrong 0" in result.stderr and b"ThreadSanitizer" not in result.stderr
    outputs = np.frombuffer(result.stdout, np.int8).reshape(6, 1, 12)
    for x, got in zip(inputs, outputs):
        np.testing.assert_array_equal(got, tflm_run(model_bytes, [x])[0].reshape(1, 12))


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_force_portable_builds_warning_free_on_dsp_cores(kws, tmp_path, compiler):
    """-DMR_FORCE_PORTABLE with the project's warnings as errors: the runtime and the kws example for the
    Cortex-M4 and M33 at -O0 and -Os (gcc with arm-none-eabi-gcc, clang with --target=arm-none-eabi)."""
    _, model, out = kws
    gcc = shutil.which("arm-none-eabi-gcc")
    if gcc is None or shutil.which(compiler) is None:
        pytest.skip(f"arm-none-eabi-gcc and {compiler} are needed")
    prefix = [gcc]
    if compiler == "clang":
        listing = subprocess.run([gcc, "-xc", "-E", "-Wp,-v", "/dev/null"], capture_output=True, text=True).stderr
        newlib = [line.strip() for line in listing.splitlines()
                  if line.startswith(" ") and (Path(line.strip()) / "newlib.h").is_file()]
        if not newlib:
            pytest.skip("the arm-none-eabi newlib headers are needed")
        prefix = ["clang", "--target=arm-none-eabi", "-isystem", newlib[0]]
    folder = _with_runtime(model, out)
    sources = [str(p) for p in sorted(folder.glob("*.c"))]
    for core in ("cortex-m4", "cortex-m33"):
        for level in ("-O0", "-Os"):
            result = subprocess.run([*prefix, f"-mcpu={core}", "-mthumb", level, "-DMR_FORCE_PORTABLE", *STRICT_FLAGS,
                                     "-I", str(folder), "-c", *sources], capture_output=True, text=True, cwd=tmp_path)
            assert result.returncode == 0, f"{compiler} {core} {level}:\n{result.stderr[-3000:]}"
