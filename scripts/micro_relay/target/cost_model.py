"""The per-layer cost model: Cortex-M4 instructions (DSP path) of a conv2d, depthwise_conv2d or dense layer
for each kernel path its constant shapes allow, used for the kernel choices and shown in the plan report.

A path's estimate is a linear function of counts fixed by the shapes (the loops the kernel runs):
    instructions = sum_i coefficient_i * feature_i      (features: MACs, outputs, pixels, strip words, 1, ...)
with one coefficient set per path, fitted by non-negative least squares on relative error to per-layer
instruction counts measured on mps2-an386 (QEMU -icount, `micro-relay bench --profile`) for small single-layer
models covering every path. Non-negative coefficients make every estimate grow with each count, MACs included.
The coefficients live in cortex_m4_coefficients.json next to this file, produced by

    python3 benchmarks/fit_cost_model.py

(about three minutes; re-run it when a kernel changes: tests/bench/test_cost_model.py says when it has drifted).
Only int8 layers on our own kernels get an estimate; float, int16 and the CMSIS-NN backend have none.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from ..ops._conv_common import Geometry, is_pointwise

COEFFICIENTS = Path(__file__).with_name("cortex_m4_coefficients.json")

# Output pixels per strip fill of the depthwise DSP path (DSP_CHUNK in kernels/arm_dsp/depthwise_conv2d.py,
# MR_DW_CHUNK in crt/include/micro_relay/depthwise_conv2d.h); kept here so that the cost model does not import the
# kernel it decides for (tests/kernels/test_layouts.py ties the three).
STRIP_CHUNK = 16


def _ceil4(n: int) -> int:
    return -(-n // 4) * 4


def _pixels(g: Geometry) -> int:
    return g.batches * g.out_h * g.out_w


# -- features: name -> count, per path -----------------------------------------------------------------------

def conv_tiles(g: Geometry, tile: int) -> int:
    """Tiles mr_conv2d_s8's DSP path runs with `tile` pixels a tile: over all pixels (pointwise), over bands of
    tile // out_w whole rows (one group, tile >= out_w), else over each output row in pieces."""
    if is_pointwise(g):
        return -(-_pixels(g) // tile)
    rows = g.batches * g.out_h
    if g.filter_c == g.in_c and tile >= g.out_w:
        return -(-rows // (tile // g.out_w))
    return rows * -(-g.out_w // tile)


def _tile_setups(p: dict, n: int) -> dict[str, int]:
    """Per tile, each channel pair's setup ("tile_pairs": constants, the call) and its filters' extension to
    int16 ("tile_quads": blocks of 4 values of both filters); both shrink with larger tiles (tile_pixels)."""
    g: Geometry = p["geometry"]
    setups = conv_tiles(g, p["tile_pixels"]) * ((g.out_c + 1) // 2)
    return {"tile_pairs": setups, "tile_quads": setups * ((n + 3) // 4)}


def _im2col(p: dict) -> dict[str, int]:
    """mr_conv2d_s8's DSP window path: each output pixel's window (n values, padded to a multiple of 4) is
    gathered as int16 row runs (staged as int8 first when filter_c is not a multiple of 4), then multiplied 2
    pixels x 2 channels a block, and every output is requantized."""
    g: Geometry = p["geometry"]
    n = g.k_h * g.k_w * g.filter_c
    pixels = _pixels(g)
    contiguous = g.dil_w == 1 and g.filter_c == g.in_c
    staged = g.filter_c % 4 != 0
    return {"macs": pixels * g.out_c * _ceil4(n), "gathered": 0 if staged else pixels * n,
            "gathered_staged": pixels * n if staged else 0, "outputs": pixels * g.out_c,
            "runs": pixels * g.k_h * (1 if contiguous else g.k_w), **_tile_setups(p, n), "layer": 1}


def _pointwise(p: dict) -> dict[str, int]:
    """The 1x1 matrix product: pixel rows extended to int16 (padded to 8 values by the _pw8 entry, to 16 by
    _pw16), a block of outputs per pass, every output requantized; per tile, each channel pair's setup and
    filter extension (_tile_setups)."""
    g: Geometry = p["geometry"]
    pixels = _pixels(g)
    padded = 8 if g.in_c <= 8 else 16 if g.in_c <= 16 else g.in_c
    return {"macs": pixels * g.out_c * g.in_c, "extended": pixels * padded, "outputs": pixels * g.out_c,
            "pixels": pixels, **_tile_setups(p, g.in_c), "layer": 1}


def _pointwise16(p: dict) -> dict[str, int]:
    """_pw16: every channel pair's filters extended once a call up to 64 output channels (quads_once; above,
    one slot refilled a tile and pair), and a setup per tile and pair."""
    g: Geometry = p["geometry"]
    once = g.out_c <= 64
    features = _pointwise(p)
    features["quads_once"] = 4 * ((g.out_c + 1) // 2) if once else 0
    features["tile_quads"] = 0 if once else features["tile_quads"]
    return features


def _pointwise8(p: dict) -> dict[str, int]:
    """_pw8: per tile, each output channel's constants and 8 weights go to registers (tile_channels)."""
    g: Geometry = p["geometry"]
    features = _pointwise(p)
    del features["tile_pairs"], features["tile_quads"]
    features["tile_channels"] = conv_tiles(g, p["tile_pixels"]) * g.out_c
    return features


def strip_fills(g: Geometry) -> int:
    """Strips filled per chunk of an output row: one per input channel shared by its blocks (multiplier a multiple
    of 4), else one per block of 4 channels (the last one partial when out_c is not a multiple of 4)."""
    return g.in_c if g.filter_c % 4 == 0 else -(-g.out_c // 4)


def gathered_fills(g: Geometry) -> int:
    """Of those, the fills whose lanes are gathered in C (dw_roll_gather): every block for multipliers other than
    1 and the multiples of 4, else the partial last block."""
    if g.filter_c != 1 and g.filter_c % 4:
        return strip_fills(g)
    return 1 if g.out_c % 4 else 0


def slow_blocks(p: dict) -> int:
    """Blocks of 4 channels the 3x3 assembly cannot requantize (mr_requant_zp_of needs mult >= 0 and a shift in
    [-21, -2]): their sums are requantized in C (kernels/arm_dsp/depthwise_conv2d.py report). None when the layer takes
    the _strip3x3_shift1 entry point (out_c a multiple of 4, every shift in [-21, -1] with mult >= 0), whose
    assembly holds shift -1 too at 3 more instructions an output (left to the fit's per-output cost)."""
    g: Geometry = p["geometry"]
    if "mult" not in p or not is_3x3(g):
        return 0
    pairs = list(zip(p["mult"], p["shift"]))
    if g.out_c % 4 == 0 and all(m >= 0 and -21 <= s <= -1 for m, s in pairs):
        return 0
    fits = [m >= 0 and -21 <= s <= -2 for m, s in pairs]
    return sum(not all(fits[i:i + 4]) or i + 4 > g.out_c for i in range(0, g.out_c, 4))  # a partial block is raw


def _strip(p: dict) -> dict[str, int]:
    """The depthwise strip kernel: per output row and chunk of STRIP_CHUNK pixels, each fill extends k_h rows of
    the chunk's input span to int16 (zero-padded), then the taps run over it (C loop or 3x3 assembly; blocks
    the assembly cannot requantize take the C loop: slow_macs; so does a partial last block). Blocks whose lanes
    are gathered fill in C ("gathered_words", else "strip_words"). Rolling strips (p["rolling"]) extend k_h rows
    at a batch image's first output row and stride_h rows at each later one, after moving the k_h - stride_h rows
    they keep ("moved_words", 2 words a pixel)."""
    g: Geometry = p["geometry"]
    slow = slow_blocks(p) * 4 * _pixels(g) * g.k_h * g.k_w
    fills = strip_fills(g)
    spans = [(min(STRIP_CHUNK, g.out_w - start) - 1) * g.stride_w + (g.k_w - 1) * g.dil_w + 1
             for start in range(0, g.out_w, STRIP_CHUNK)]
    rows = g.batches * g.out_h
    extended, moved = rows * g.k_h * sum(spans), 0
    if p.get("rolling"):
        extended = g.batches * sum(spans) * (g.k_h + (g.out_h - 1) * g.stride_h)
        moved = g.batches * (g.out_h - 1) * 2 * (g.k_h - g.stride_h) * sum(spans)
    gathered = gathered_fills(g)
    return {"macs": _pixels(g) * _ceil4(g.out_c) * g.k_h * g.k_w - slow, "slow_macs": slow,
            "outputs": _pixels(g) * _ceil4(g.out_c), "strip_words": extended * (fills - gathered),
            "gathered_words": extended * gathered, "moved_words": moved * fills, "fills": rows * len(spans) * fills,
            "layer": 1}


def _walk(p: dict) -> dict[str, int]:
    """mr_depthwise_conv2d_s8's window walk: per output pixel the window is clipped to the image, then every
    channel (or block of 4 outputs of one input channel) runs its taps and is requantized."""
    g: Geometry = p["geometry"]
    pixels = _pixels(g)
    return {"macs": pixels * g.out_c * g.k_h * g.k_w, "outputs": pixels * g.out_c, "pixels": pixels, "layer": 1}


def _dense(p: dict) -> dict[str, int]:
    """mr_dense_s8: per row, blocks of 4 units (the last block repeats units to fill it) or one unit at a time;
    the assembly requantizes a block itself when prepare found mr_requant_zp constants, else C does."""
    units = _ceil4(p["units"]) if dense_path(p) == "dense_blocks" else p["units"]
    outputs = p["rows"] * units
    return {"macs": outputs * p["depth"], "outputs": outputs, "outputs_requantized_in_c": 0 if "requant" in p
            else outputs, "rows": p["rows"], "layer": 1}


FEATURES = {
    "conv2d_im2col": _im2col,
    "conv2d_pointwise": _pointwise,
    "conv2d_pointwise8": _pointwise8,
    "conv2d_pointwise16": _pointwise16,
    "depthwise_strip": _strip,
    "depthwise_strip3x3": _strip,
    "depthwise_walk": _walk,
    "depthwise_walk_shared4": _walk,
    "dense_blocks": _dense,
    "dense_units": _dense,
}


# -- paths -------------------------------------------------------------------------------------------------

def conv2d_path(g: Geometry) -> str:
    """The path mr_conv2d_s8 takes (kernels/arm_dsp/conv2d.py _suffix)."""
    if is_pointwise(g):
        if g.in_c <= 16:
            return "conv2d_pointwise8" if g.in_c <= 8 else "conv2d_pointwise16"
        return "conv2d_pointwise"
    return "conv2d_im2col"


def is_3x3(g: Geometry) -> bool:
    return (g.k_h, g.k_w, g.dil_h, g.dil_w) == (3, 3, 1, 1)


def depthwise_candidates(g: Geometry) -> tuple[str, ...]:
    """The paths the compiler chooses among: 3x3 undilated takes the assembly strip without a choice; else the C
    strip or the walk, which takes 4 outputs of one input channel a pass when the multiplier is a multiple of 4,
    one channel at a time otherwise."""
    walk = "depthwise_walk_shared4" if g.filter_c % 4 == 0 else "depthwise_walk"
    if is_3x3(g):
        return ("depthwise_strip3x3",)
    return ("depthwise_strip", walk)


def dense_path(p: dict) -> str | None:
    """mr_dense_s8's loops (kernels/arm_dsp/dense.py report); None: zero points not folded (no fitted path)."""
    if "folded_bias" not in p:
        return None
    return "dense_units" if p["units"] < 4 or p["depth"] < 4 else "dense_blocks"


# -- estimates ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def coefficients() -> dict:
    return json.loads(COEFFICIENTS.read_text())


def features(path: str, shape) -> dict[str, int]:
    """The counts of `path` for a layer's prepared params (a convolution's need only "geometry")."""
    return FEATURES[path](shape)


def instructions(path: str, shape, table: dict | None = None) -> int | None:
    """Estimated Cortex-M4 instructions of `path` for these shapes; None when the path has no fitted
    coefficients. table: coefficients to use instead of cortex_m4_coefficients.json (the fit script's)."""
    fitted = (table or coefficients())["paths"].get(path)
    if fitted is None:
        return None
    counts = features(path, shape)
    return round(sum(c * counts.get(name, 0) for name, c in fitted["coefficients"].items()))


def layer_estimate(path: str | None, shape, candidates: tuple[str, ...] = ()) -> dict | None:
    """The plan report's estimate of one layer: the chosen path's instructions, and every candidate's when
    there was a choice."""
    if path is None:
        return None
    chosen = instructions(path, shape)
    if chosen is None:
        return None
    entry = {"instructions": chosen, "path": path}
    if len(candidates) > 1:
        entry["alternatives"] = {c: instructions(c, shape) for c in candidates}
    return entry


def conv2d_estimate(p: dict) -> dict | None:
    return layer_estimate(conv2d_path(p["geometry"]), p)


def depthwise_path(g: Geometry, strip: bool) -> str:
    """The candidate that ops/depthwise_conv2d.uses_strip (`strip`) picked."""
    candidates = depthwise_candidates(g)
    return next((c for c in candidates if ("strip" in c) == strip), candidates[0])


def depthwise_estimate(p: dict, strip: bool) -> dict | None:
    g: Geometry = p["geometry"]
    return layer_estimate(depthwise_path(g, strip), p, depthwise_candidates(g))


def dense_estimate(p: dict) -> dict | None:
    return layer_estimate(dense_path(p), p)
