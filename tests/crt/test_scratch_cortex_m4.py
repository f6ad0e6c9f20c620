"""Kernel status on the Cortex-M4 (mps2-an386 under QEMU), where the int8 conv2d and depthwise DSP paths live.

Each named layer shape is run straight through its DSP entry point (mr_conv2d_s8, _pw8, _pw16 and the five
depthwise strip entries) with the least scratch the compiler plans for it (dsp_scratch_bytes of
kernels/arm_dsp/conv2d.py and depthwise_conv2d.py): MR_OK and the portable path's output (mr_conv2d_s8_portable,
the depthwise window walk), bit for bit. With one byte less, or a NULL scratch, the entry returns MR_ERR_SCRATCH and
writes nothing. mr_dense_s8 (the DSP path) equals mr_dense_s8_portable.

Built with -DMR_FORCE_PORTABLE, every entry takes the portable path: the same outputs, and short scratch is
no error, since that path uses none. A whole model built so (the kws example, through the bench runner) gives
TFLite Micro's outputs, the same as the DSP build, and links the portable kernels instead of the DSP ones.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from support.tflm_oracle import tflm_run
from micro_relay.bench.build import arena_flag, build_runner, find_tool, write_model_shim
from micro_relay.bench.machines import get_machine
from micro_relay.bench.run import run_qemu, samples
from micro_relay.compiler import CRT_DIR, compile_graph, prepare_graph, write_output
from micro_relay.examples.kws_model import build_kws_model
from micro_relay.ops._conv_common import Geometry
from micro_relay.kernels.arm_dsp.conv2d import dsp_scratch_bytes as conv_scratch_bytes
from micro_relay.kernels.arm_dsp.depthwise_conv2d import strip_scratch_bytes

BOARD = "mps2-an386"
KERNELS = ("conv2d", "conv2d_dsp", "depthwise_conv2d", "dense")


def _status(name: str) -> int:
    crt_h = (CRT_DIR / "include" / "micro_relay" / "crt.h").read_text()
    return int(re.search(rf"^#define {name} (\d+)$", crt_h, re.MULTILINE).group(1))


def shape(n, h, w, c, oh, ow, oc, kh, kw, fc, sh=1, sw=1, top=1, left=1, dh=1, dw=1) -> Geometry:
    return Geometry(n, h, w, c, oh, ow, oc, kh, kw, fc, sh, sw, dh, dw, top, left)


# name: (entry point, geometry, per-channel shifts, cycled). Depthwise geometries hold the depth multiplier in
# filter_c.
CONV = {
    # 3x3 SAME over 8 channels: windows extended straight from the image, borders on every side
    "conv3x3_c8": ("mr_conv2d_s8", shape(1, 6, 7, 8, 6, 7, 5, 3, 3, 8), (-8, -9)),
    # 3 input channels, stride 2: each window staged as int8 in the scratch first
    "conv3x3_c3_s2": ("mr_conv2d_s8", shape(1, 5, 5, 3, 3, 3, 4, 3, 3, 3, 2, 2), (-7, -1, 0)),
    # pointwise with 32 channels: mr_conv2d_s8's own matrix product
    "pointwise_c32": ("mr_conv2d_s8", shape(1, 3, 4, 32, 3, 4, 6, 1, 1, 32, top=0, left=0), (-9,)),
    # pointwise with 8 and 12 channels: the _pw8 and _pw16 entries
    "pointwise_c8": ("mr_conv2d_s8_pw8", shape(1, 4, 5, 8, 4, 5, 6, 1, 1, 8, top=0, left=0), (-6, -7)),
    "pointwise_c12": ("mr_conv2d_s8_pw16", shape(1, 3, 5, 12, 3, 5, 7, 1, 1, 12, top=0, left=0), (-8, -1)),
}
DEPTHWISE = {
    # 5x3 window (the strip's C tap loop), 8 channels
    "dw5x3_c8": ("mr_depthwise_conv2d_s8_strip", shape(1, 7, 9, 8, 7, 9, 8, 5, 3, 1, top=2), (-8,)),
    # 3x3 with 6 channels: a block of 4 and two left over
    "dw3x3_c6": ("mr_depthwise_conv2d_s8_strip3x3", shape(1, 6, 7, 6, 6, 7, 6, 3, 3, 1), (-7, -9)),
    # 3x3, 20 pixels a row (two chunks), shifts the assembly cannot take (raw sums requantized in C)
    "dw3x3_c8_raw": ("mr_depthwise_conv2d_s8_strip3x3_x4", shape(1, 5, 20, 8, 5, 20, 8, 3, 3, 1), (0, -1, -3, -9)),
    "dw3x3_c8_fast": ("mr_depthwise_conv2d_s8_strip3x3_fast", shape(1, 5, 20, 8, 5, 20, 8, 3, 3, 1), (-8, -10)),
    "dw3x3_c8_shift1": ("mr_depthwise_conv2d_s8_strip3x3_shift1", shape(1, 5, 9, 8, 5, 9, 8, 3, 3, 1), (-1, -2, -5)),
    # depth multiplier 4 at stride 2: one input channel in all four lanes
    "dw3x3_m4_s2": ("mr_depthwise_conv2d_s8_strip3x3_x4", shape(1, 7, 9, 2, 4, 5, 8, 3, 3, 4, 2, 2), (-8,)),
}

MAIN = r"""
#include <stdint.h>
#include <string.h>

#include "semihost.h"
#include "micro_relay/conv2d.h"
#include "micro_relay/dense.h"
#include "micro_relay/depthwise_conv2d.h"
#include "micro_relay/simd.h"

typedef int (*mr_entry)(const mr_conv2d_q_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                        int8_t *out, void *scratch);

typedef struct {
    mr_entry entry;
    int depthwise;
    mr_conv_geometry geo;
    const int32_t *mult, *shift;
    int32_t least;   /* the least scratch the compiler plans */
    int32_t rolling; /* depthwise: the scratch of rolling strips (0: none) */
} mr_case;

@DECLARATIONS@

static uint64_t scratch[@SCRATCH_WORDS@];
static int8_t in[@IN@], w[@W@], out[@OUT@], ref[@OUT@];
static int32_t bias[@OC@];
static uint32_t state = 2463534242u;

static uint32_t next(void)
{
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}

static int untouched(int32_t n)
{
    int32_t i;
    for (i = 0; i < n; ++i) {
        if (out[i] != 0x5A) {
            return 0;
        }
    }
    return 1;
}

static void run(const mr_case *c, mr_conv2d_q_params *p, int32_t scratch_bytes, void *buffer, const char *status,
                const char *check, int32_t n_out, int same)
{
    memset(out, 0x5A, sizeof out);
    p->scratch_bytes = scratch_bytes;
    mrb_put_hex(status, (uint32_t)c->entry(p, in, w, bias, out, buffer));
    mrb_put_hex(check, same ? memcmp(out, ref, (size_t)n_out) == 0 : untouched(n_out));
}

static void dense_case(void)
{
    enum { ROWS = 3, DEPTH = 37, UNITS = 9 };
    static int32_t mult[UNITS], shift[UNITS], folded[UNITS];
    static int8_t y_dsp[ROWS * UNITS], y_portable[ROWS * UNITS];
    mr_dense_q_params p;
    int32_t o, d;
    for (o = 0; o < UNITS; ++o) {
        mult[o] = 1200000000 + 7654321 * o;
        shift[o] = -7 - o % 3;
        folded[o] = (int32_t)(next() % 4001u) - 2000;
        for (d = 0; d < DEPTH; ++d) {
            w[o * DEPTH + d] = (int8_t)(next() % 255u - 127u);
            folded[o] -= -5 * w[o * DEPTH + d];
        }
    }
    for (d = 0; d < ROWS * DEPTH; ++d) {
        in[d] = (int8_t)next();
    }
    p.rows = ROWS, p.depth = DEPTH, p.units = UNITS, p.in_zp = -5, p.w_zp = 0, p.out_zp = 3;
    p.act_min = -128, p.act_max = 127, p.per_channel = 1, p.mult = mult, p.shift = shift;
    p.folded_bias = folded, p.requant = NULL;
    mrb_put_hex("mr-bench: dense status", (uint32_t)mr_dense_s8(&p, in, w, NULL, y_dsp) |
                                          (uint32_t)mr_dense_s8_portable(&p, in, w, NULL, y_portable));
    mrb_put_hex("mr-bench: dense same", memcmp(y_dsp, y_portable, sizeof y_dsp) == 0);
}

int main(void)
{
    unsigned k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const mr_case *c = &cases[k];
        const mr_conv_geometry *g = &c->geo;
        const int32_t n_in = g->batches * g->in_h * g->in_w * g->in_c;
        const int32_t n_w = c->depthwise ? g->k_h * g->k_w * g->out_c : g->out_c * g->k_h * g->k_w * g->filter_c;
        const int32_t n_out = g->batches * g->out_h * g->out_w * g->out_c;
        mr_conv2d_q_params p;
        int32_t i, inner;
        p.geo = *g, p.in_zp = -5, p.out_zp = 3, p.act_min = -128, p.act_max = 127;
        p.mult = c->mult, p.shift = c->shift, p.folded_bias = NULL, p.scratch_bytes = 0;
        for (i = 0; i < n_in; ++i) {
            in[i] = (int8_t)next();
        }
        for (i = 0; i < n_w; ++i) {
            w[i] = (int8_t)(next() % 255u - 127u);
        }
        for (i = 0; i < g->out_c; ++i) {
            bias[i] = (int32_t)(next() % 8001u) - 4000;
        }
        mrb_put_hex("mr-bench: reference", (uint32_t)(c->depthwise ? mr_depthwise_conv2d_s8(&p, in, w, bias, ref)
                                                      : mr_conv2d_s8_portable(&p, in, w, bias, ref, NULL)));
        for (i = 0, inner = 0; i < n_out; ++i) {
            inner += ref[i] > -128 && ref[i] < 127;
        }
        mrb_put_hex("mr-bench: inner", (uint32_t)inner);
        run(c, &p, c->least, scratch, "mr-bench: planned", "mr-bench: same", n_out, 1);
        if (c->rolling) {
            run(c, &p, c->rolling, scratch, "mr-bench: rolling", "mr-bench: rolling same", n_out, 1);
        }
        run(c, &p, c->least - 1, scratch, "mr-bench: short", "mr-bench: untouched", n_out, MR_DSP_ASM == 0);
        run(c, &p, c->least, NULL, "mr-bench: null", "mr-bench: null untouched", n_out, MR_DSP_ASM == 0);
    }
    dense_case();
    mrb_puts("mr-bench: done\n");
    return 0;
}
"""


def _c_array(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def _main_source() -> tuple[str, list[str]]:
    """The harness's C and its case names, in order."""
    declarations, rows, names = [], [], []
    sizes = {"IN": 1, "W": 1, "OUT": 1, "OC": 1, "SCRATCH": 8}
    for index, (name, (entry, g, shifts)) in enumerate([*CONV.items(), *DEPTHWISE.items()]):
        depthwise = name in DEPTHWISE
        if depthwise:
            least, rolling = strip_scratch_bytes(g), strip_scratch_bytes(g, rolling=True)  # the entry called
            rolling = 0 if rolling == least else rolling
        else:
            least, rolling = conv_scratch_bytes(g, tile_pixels=2), 0
        mult = [1100000000 + 9876543 * oc for oc in range(g.out_c)]
        shift = [shifts[oc % len(shifts)] for oc in range(g.out_c)]
        declarations.append(f"static const int32_t mult{index}[] = {_c_array(mult)};\n"
                            f"static const int32_t shift{index}[] = {_c_array(shift)};")
        rows.append(f"    {{{entry}, {int(depthwise)}, {g.c_initializer()}, mult{index}, shift{index}, {least}, "
                    f"{rolling}}},")
        names.append(name)
        weights = g.k_h * g.k_w * g.out_c * (1 if depthwise else g.filter_c)
        for key, size in (("IN", g.batches * g.in_h * g.in_w * g.in_c), ("W", max(weights, 37 * 9)),
                          ("OUT", g.batches * g.out_h * g.out_w * g.out_c), ("OC", g.out_c),
                          ("SCRATCH", max(least, rolling))):
            sizes[key] = max(sizes[key], size)
    sizes["IN"] = max(sizes["IN"], 3 * 37)
    text = MAIN.replace("@DECLARATIONS@", "\n".join(declarations) + "\n\nstatic const mr_case cases[] = {\n" +
                        "\n".join(rows) + "\n};")
    text = text.replace("@SCRATCH_WORDS@", str(sizes.pop("SCRATCH") // 8 + 1))
    for key, size in sizes.items():
        text = text.replace(f"@{key}@", str(size))
    return text, names


def _run_harness(folder: Path, flags: tuple[str, ...]) -> tuple[list[str], dict[str, list[int]]]:
    gcc, qemu = find_tool("arm-none-eabi-gcc", "gcc-arm-none-eabi"), find_tool("qemu-system-arm", "qemu-system-arm")
    machine = get_machine(BOARD)
    folder.mkdir(parents=True)
    text, names = _main_source()
    main = folder / "status_main.c"
    main.write_text(text)
    elf = build_runner(gcc, machine, CRT_DIR / "include", folder, str(main),
                       [CRT_DIR / "src" / f"mr_{k}.c" for k in KERNELS], defines=flags, model_flags=flags)
    pairs = run_qemu(qemu, machine, elf, folder, 300)
    keys = {key for key, _ in pairs}
    return names, {key: samples(pairs, key) for key in keys}


@pytest.fixture(scope="module")
def dsp(arm_tools, tmp_path_factory):
    return _run_harness(tmp_path_factory.mktemp("status") / "dsp", ())


@pytest.fixture(scope="module")
def portable(arm_tools, tmp_path_factory):
    return _run_harness(tmp_path_factory.mktemp("status") / "portable", ("-DMR_FORCE_PORTABLE",))


def test_planned_scratch_gives_the_portable_output(dsp):
    names, said = dsp
    assert said["reference"] == [0] * len(names)
    assert all(inner > 0 for inner in said["inner"]), "every case has outputs inside the int8 clamp"
    assert dict(zip(names, said["planned"])) == dict.fromkeys(names, 0)
    assert dict(zip(names, said["same"])) == dict.fromkeys(names, 1)
    assert said["rolling"] and set(said["rolling"]) == {0} and set(said["rolling same"]) == {1}


def test_short_or_null_scratch_is_mr_err_scratch_and_writes_nothing(dsp):
    names, said = dsp
    error = _status("MR_ERR_SCRATCH")
    assert error != 0
    assert dict(zip(names, said["short"])) == dict.fromkeys(names, error)
    assert dict(zip(names, said["untouched"])) == dict.fromkeys(names, 1)
    assert dict(zip(names, said["null"])) == dict.fromkeys(names, error)
    assert dict(zip(names, said["null untouched"])) == dict.fromkeys(names, 1)


def test_dense_dsp_path_equals_the_portable_one(dsp):
    _, said = dsp
    assert said["dense status"] == [0] and said["dense same"] == [1]


def test_force_portable_takes_the_portable_path_everywhere(portable):
    """With MR_FORCE_PORTABLE the entries run the portable loops: no scratch needed, the same outputs."""
    names, said = portable
    for key in ("reference", "planned", "short", "null"):
        assert dict(zip(names, said[key])) == dict.fromkeys(names, 0), key
    for key in ("same", "untouched", "null untouched"):  # with MR_FORCE_PORTABLE "untouched" compares with ref
        assert dict(zip(names, said[key])) == dict.fromkeys(names, 1), key
    assert said["dense status"] == [0] and said["dense same"] == [1]


def _bench_build(folder: Path, model, flags: tuple[str, ...], inputs: list[np.ndarray]) -> tuple[np.ndarray, str]:
    """The model built into the bench runner (one run on `inputs`): its outputs and the ELF's symbols."""
    gcc, qemu = find_tool("arm-none-eabi-gcc", "gcc-arm-none-eabi"), find_tool("qemu-system-arm", "qemu-system-arm")
    machine = get_machine(BOARD)
    model_dir = folder / "model"
    write_output(model, model_dir)
    write_model_shim(model_dir, model.name)
    (folder / "input.bin").write_bytes(b"".join(x.tobytes() for x in inputs))
    sources = [model_dir / f"{model.name}.c", *(model_dir / f"mr_{k}.c" for k in model.kernels)]
    elf = build_runner(gcc, machine, model_dir, folder, "bench_main.c", sources, ("-DMRB_RUNS=1",),
                       model_flags=(arena_flag(model.name), *flags))
    run_qemu(qemu, machine, elf, folder, 300)
    nm = shutil.which("arm-none-eabi-nm") or "nm"
    symbols = subprocess.run([nm, str(elf)], capture_output=True, text=True, check=True).stdout
    return np.frombuffer((folder / "output.bin").read_bytes(), np.int8), symbols


def test_force_portable_model_matches_tflite_micro_and_the_dsp_build(arm_tools, tmp_path):
    """The kws example compiled for --target cortex-m4 (the DSP entry points), on the Cortex-M4, built with and
    without -DMR_FORCE_PORTABLE: both give TFLite Micro's output; only the portable build links
    mr_conv2d_s8_portable and mr_dense_s8_portable."""
    model_bytes = build_kws_model()
    path = tmp_path / "kws.tflite"
    path.write_bytes(model_bytes)
    model = compile_graph(prepare_graph(path), "kws", path.name, target="cortex-m4")
    x = np.random.default_rng(11).integers(-128, 128, (1, 49, 10, 1), dtype=np.int64).astype(np.int8)
    want = tflm_run(model_bytes, [x])[0].reshape(-1)
    dsp_out, dsp_symbols = _bench_build(tmp_path / "dsp", model, (), [x])
    portable_out, portable_symbols = _bench_build(tmp_path / "portable", model, ("-DMR_FORCE_PORTABLE",), [x])
    np.testing.assert_array_equal(dsp_out, want)
    np.testing.assert_array_equal(portable_out, want)
    for symbol in ("mr_conv2d_s8_portable", "mr_dense_s8_portable"):
        assert re.search(rf"\b{symbol}\b", portable_symbols) and not re.search(rf"\b{symbol}\b", dsp_symbols)
