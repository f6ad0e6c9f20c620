"""The C layouts the compiler plans for, in C and in Python, over geometries real networks have.

The int8 conv2d and depthwise_conv2d DSP paths take arena scratch whose layout the C runtime defines once
(mr_conv2d_s8_scratch_bytes / mr_conv2d_s8_tile_pixels in crt/src/mr_conv2d_dsp.c, mr_depthwise_conv2d_s8_scratch_bytes
/ mr_depthwise_conv2d_s8_kept_rows in crt/src/mr_depthwise_conv2d.c: the kernels use the same functions). The
compiler computes the same sizes in Python to plan the arena and to know the tile the kernel will take (the
memory planner's overlap of a pointwise layer's input and output relies on it) and whether a depthwise layer
rolls its strips. This test builds those C functions on the host with a small driver that reads geometries on
stdin and prints sizes, and fails when the two sides drift, over a few thousand geometries: pointwise layers
with 1..1024 channels, 3x3, 5x5 and 7x7 windows (and the keyword-spotting 10x4 and micro_speech 10x8 ones),
strides 1 and 2, dilation, groups, depth multipliers 1, 2, 4 and 8, widths 1..200.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CRT = ROOT / "crt"
INT32_MAX = 2**31 - 1

DRIVER = r"""
#include <stdio.h>

#include "micro_relay/conv2d.h"
#include "micro_relay/depthwise_conv2d.h"

/* Per line: "c TILE" or "d", then mr_conv_geometry's 16 fields in order; "k" prints the constants. */
int main(void)
{
    char kind;
    while (scanf(" %c", &kind) == 1) {
        mr_conv_geometry g;
        long f[16], tile = 0;
        int i;
        if (kind == 'k') {
            printf("%d %d\n", MR_POINTWISE_TILE, MR_DW_CHUNK);
            continue;
        }
        if (kind == 'c' && scanf("%ld", &tile) != 1) {
            return 2;
        }
        for (i = 0; i < 16; ++i) {
            if (scanf("%ld", &f[i]) != 1) {
                return 2;
            }
        }
        g.batches = (int32_t)f[0], g.in_h = (int32_t)f[1], g.in_w = (int32_t)f[2], g.in_c = (int32_t)f[3];
        g.out_h = (int32_t)f[4], g.out_w = (int32_t)f[5], g.out_c = (int32_t)f[6];
        g.k_h = (int32_t)f[7], g.k_w = (int32_t)f[8], g.filter_c = (int32_t)f[9];
        g.stride_h = (int32_t)f[10], g.stride_w = (int32_t)f[11], g.dil_h = (int32_t)f[12], g.dil_w = (int32_t)f[13];
        g.pad_top = (int32_t)f[14], g.pad_left = (int32_t)f[15];
        if (kind == 'c') {
            const int32_t bytes = mr_conv2d_s8_scratch_bytes(&g, (int32_t)tile);
            printf("%ld %ld\n", (long)bytes, bytes < 0 ? -1L : (long)mr_conv2d_s8_tile_pixels(&g, bytes));
        } else {
            const int32_t plain = mr_depthwise_conv2d_s8_scratch_bytes(&g, 0);
            const int32_t rolling = mr_depthwise_conv2d_s8_scratch_bytes(&g, 1);
            printf("%ld %ld %ld %ld\n", (long)plain, (long)rolling, (long)mr_depthwise_conv2d_s8_kept_rows(&g, plain),
                   (long)mr_depthwise_conv2d_s8_kept_rows(&g, rolling));
        }
    }
    return 0;
}
"""


def python_sizes(kind: str, geometry: tuple[int, ...] | None = None, tiles: tuple[int, ...] = ()) -> dict:
    """The Python side's sizes: the one place this file imports the compiler's layout code (the Arm DSP kernels,
    kernels/arm_dsp/, the access-order constants of kernels/overlap.py and the cost model's strip chunk).

    kind "constants": MR_POINTWISE_TILE's and MR_DW_CHUNK's Python copies. kind "conv2d": for the mr_conv_geometry
    fields, {"tiles": (0, larger_tiles...) plus `tiles`, "scratch": dsp_scratch_bytes per tile, "tile": tile_of per
    tile}. kind "depthwise" (filter_c the depth multiplier): {"strip": uses_strip, "plain", "rolling":
    dsp_scratch_bytes without and with rolling strips, "refusal": rolling_refusal}."""
    from micro_relay.kernels import overlap
    from micro_relay.kernels.arm_dsp import conv2d, depthwise_conv2d
    from micro_relay.ops._conv_common import Geometry
    from micro_relay.target import cost_model

    if kind == "constants":
        return {"pointwise_tile": (overlap.POINTWISE_TILE,),
                "dw_chunk": (depthwise_conv2d.DSP_CHUNK, cost_model.STRIP_CHUNK)}
    g = Geometry(*geometry)
    if kind == "conv2d":
        every = (0, *conv2d.larger_tiles(g), *tiles)
        return {"tiles": every, "scratch": [conv2d.dsp_scratch_bytes(g, t) for t in every],
                "tile": [conv2d.tile_of(g, t) for t in every]}
    return {"strip": depthwise_conv2d.uses_strip(g), "plain": depthwise_conv2d.dsp_scratch_bytes(g),
            "rolling": depthwise_conv2d.dsp_scratch_bytes(g, rolling=True),
            "refusal": depthwise_conv2d.rolling_refusal(g)}


def _window(size: int, k: int, stride: int, dil: int, same: bool) -> tuple[int, int] | None:
    """(out, pad_before) of one axis, TFLite's SAME or VALID; None when no output fits."""
    reach = (k - 1) * dil + 1
    if same:
        out = -(-size // stride)
        return out, max((out - 1) * stride + reach - size, 0) // 2
    out = (size - reach) // stride + 1
    return (out, 0) if out >= 1 else None


def _geometry(n, h, w, c, out_c, kh, kw, filter_c, sh, sw, dh, dw, same):
    ys, xs = _window(h, kh, sh, dh, same), _window(w, kw, sw, dw, same)
    if ys is None or xs is None:
        return None
    return (n, h, w, c, ys[0], xs[0], out_c, kh, kw, filter_c, sh, sw, dh, dw, ys[1], xs[1])


WIDTHS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 15, 16, 17, 20, 24, 25, 28, 31, 32, 33, 40, 48, 49, 56, 64, 96, 112,
          128, 160, 199, 200)
CHANNELS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 15, 16, 17, 20, 24, 28, 32, 40, 48, 64, 72, 96, 128, 144, 192,
            256, 320, 384, 512, 576, 768, 960, 1024)
WINDOWS = ((3, 3), (5, 5), (7, 7), (1, 1), (3, 1), (1, 3), (10, 4), (10, 8), (1, 7), (7, 1))


def conv_geometries() -> list[tuple[int, ...]]:
    rng = random.Random(20240607)
    cases = set()
    for c in CHANNELS:  # pointwise: every channel count, a spread of output channels and spatial sizes
        for out_c in rng.sample(CHANNELS, 8):
            w = rng.choice(WIDTHS)
            cases.add(_geometry(rng.choice((1, 1, 1, 2)), rng.choice((1, w, 2 * w // 3 + 1)), w, c, out_c, 1, 1, c,
                                1, 1, 1, 1, False))
    while len(cases) < 2200:  # windows: sizes, strides, dilation, groups, padding
        kh, kw = rng.choice(WINDOWS)
        c = rng.choice(CHANNELS)
        groups = rng.choice((1, 1, 1, 2, 4, c))
        if c % groups:
            continue
        out_c = groups * rng.choice((1, 2, 3, 4, 8, 16, 32)) if groups > 1 else rng.choice(CHANNELS)
        s = rng.choice((1, 2))
        d = rng.choice((1, 1, 1, 2))
        w = rng.choice(WIDTHS)
        h = rng.choice((w, max(1, w // 2), rng.choice(WIDTHS)))
        cases.add(_geometry(rng.choice((1, 1, 1, 2)), h, w, c, out_c, kh, kw, c // groups, s, s, d, d,
                            rng.random() < 0.6))
    cases.discard(None)
    return sorted(cases)


def depthwise_geometries() -> list[tuple[int, ...]]:
    rng = random.Random(20240608)
    cases = set()
    for w in WIDTHS:  # every width with the common 3x3 shapes
        for m in (1, 2, 4, 8):
            for s in (1, 2):
                c = rng.choice(CHANNELS)
                cases.add(_geometry(1, rng.choice((w, 3, 9)), w, c, c * m, 3, 3, m, s, s, 1, 1, rng.random() < 0.7))
    while len(cases) < 2200:
        kh, kw = rng.choice(WINDOWS)
        m = rng.choice((1, 1, 1, 2, 4, 8))
        c = rng.choice(CHANNELS if m == 1 else CHANNELS[:20])
        s = rng.choice((1, 2))
        sh = rng.choice((s, 1, 2, 3)) if rng.random() < 0.2 else s
        dh, dw = rng.choice(((1, 1), (1, 1), (1, 1), (2, 2), (2, 1), (1, 2), (3, 3)))
        w = rng.choice(WIDTHS)
        h = rng.choice((w, max(1, w // 2), rng.choice(WIDTHS)))
        cases.add(_geometry(rng.choice((1, 1, 1, 2)), h, w, c, c * m, kh, kw, m, sh, s, dh, dw, rng.random() < 0.6))
    cases.discard(None)
    return sorted(cases)


@pytest.fixture(scope="module")
def c_sizes(tmp_path_factory):
    """query(lines) -> the driver's output lines: the C side, built on the host from the kernel sources."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no host C compiler (gcc or cc) on PATH")
    folder = tmp_path_factory.mktemp("layouts")
    (folder / "driver.c").write_text(DRIVER)
    exe = folder / "driver"
    sources = [CRT / "src" / name for name in ("mr_conv2d_dsp.c", "mr_conv2d.c", "mr_depthwise_conv2d.c")]
    subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O1", "-I", str(CRT / "include"),
                    str(folder / "driver.c"), *map(str, sources), "-o", str(exe)], check=True)

    def query(lines: list[str]) -> list[list[int]]:
        result = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                                timeout=120, check=True)
        return [[int(v) for v in line.split()] for line in result.stdout.splitlines()]

    return query


def _fields(g: tuple[int, ...]) -> str:
    return " ".join(map(str, g))


def test_constants_agree(c_sizes):
    """MR_POINTWISE_TILE (conv2d.h) and MR_DW_CHUNK (depthwise_conv2d.h) against their Python copies."""
    ((pointwise_tile, chunk),) = c_sizes(["k"])
    py = python_sizes("constants")
    assert py["pointwise_tile"] == (pointwise_tile,)
    assert py["dw_chunk"] == (chunk, chunk)


def test_conv2d_scratch_and_tiles_agree(c_sizes):
    """For every geometry and tile (the default, larger_tiles' and a few odd ones): the bytes the compiler plans
    equal mr_conv2d_s8_scratch_bytes, and the tile the kernel takes from them (mr_conv2d_s8_tile_pixels) is the
    tile_of the compiler assumes."""
    geometries = conv_geometries()
    assert len(geometries) > 2000
    rows = [(g, python_sizes("conv2d", g, tiles=(1, 7, 34))) for g in geometries]
    queries = [(g, t, scratch, tile) for g, py in rows
               for t, scratch, tile in zip(py["tiles"], py["scratch"], py["tile"])]
    answers = c_sizes([f"c {t} {_fields(g)}" for g, t, _, _ in queries])
    drift = [(g, t, (scratch, tile), tuple(got)) for (g, t, scratch, tile), got in zip(queries, answers)
             if tuple(got) != ((scratch, tile) if scratch <= INT32_MAX else (-1, -1))]
    assert not drift, f"{len(drift)} of {len(queries)} (geometry, tile_pixels): (python) != (C), e.g. {drift[:5]}"


def test_depthwise_scratch_and_rolling_agree(c_sizes):
    """For every geometry whose layer takes the strip (uses_strip): the plain and rolling scratch the compiler
    plans equal mr_depthwise_conv2d_s8_scratch_bytes, and with the rolling size the kernel rolls
    (mr_depthwise_conv2d_s8_kept_rows: k_h - stride_h rows kept) whenever rolling_refusal finds nothing against it,
    and never with row dilation or stride_h >= k_h. Where C says the strip entry points cannot take a geometry,
    Python does not plan one."""
    geometries = depthwise_geometries()
    assert len(geometries) > 2000
    answers = c_sizes([f"d {_fields(g)}" for g in geometries])
    drift, compared, windows = [], 0, set()
    for g, (plain, rolling, kept_plain, kept_rolling) in zip(geometries, answers):
        py = python_sizes("depthwise", g)
        k_h, stride_h, dil_h = g[7], g[10], g[12]
        if not py["strip"]:
            if plain == 0 and py["plain"] != 0:
                drift.append((g, "C refuses a strip the compiler plans"))
            continue
        compared += 1
        windows.add((g[7], g[8]))
        if (plain, rolling) != (py["plain"], py["rolling"]):
            drift.append((g, (py["plain"], py["rolling"]), (plain, rolling)))
        if py["refusal"] is None and kept_rolling != k_h - stride_h:
            drift.append((g, "planned rolling strips, the kernel keeps", kept_rolling))
        if (dil_h != 1 or stride_h >= k_h) and (kept_plain or kept_rolling):
            drift.append((g, "rolls where no row is shared", kept_plain, kept_rolling))
    assert not drift, f"{len(drift)} of {compared} geometries drift, e.g. {drift[:5]}"
    assert compared > 1000 and {(5, 5), (7, 7)} <= windows  # the strip layouts beyond 3x3 were compared too
