"""Helpers of the data-movement ops (pad, strided_slice, concatenate, mean) and the 2-D pools.

Copy kernels take a fixed-rank view (dims and element steps, outermost first) so the C has no recursion and
no per-rank variants; `collapse` first merges axes that walk memory as one, so most copies become a few long
memcpy runs. Pools share their window geometry, TFLite Micro's Prepare checks and their numpy reference.
Their C calls are their portable kernels' (kernels/portable/; the shared ones in kernels/portable/_pooling.py).
"""

from __future__ import annotations

from ..arith.multiplier import f32
from ..ir.types import INT32_MAX, DType, TensorType
from ._common import clamp_range, fail, kernel_suffix, out_type, require_quant, types

COPY_MAX_DIMS = 5  # MR_PAD_MAX_DIMS and MR_STRIDED_SLICE_MAX_DIMS in the C headers


def row_major_steps(shape) -> list[int]:
    """Element step of each axis of a contiguous row-major tensor."""
    steps, step = [], 1
    for dim in reversed(tuple(shape)):
        steps.append(step)
        step *= int(dim)
    return steps[::-1]


def collapse(dims, steps) -> tuple[list[int], list[int]]:
    """Drop size-1 axes and merge axis a into the next one b when stepping a is the same as running on
    along b (step[a] == dims[b] * step[b]); the view stays the same elements in the same order."""
    pairs = [(int(d), int(s)) for d, s in zip(dims, steps) if int(d) != 1]
    merged: list[tuple[int, int]] = []
    for d, s in reversed(pairs):
        if merged and s == merged[0][0] * merged[0][1]:
            inner_d, inner_s = merged[0]
            merged[0] = (d * inner_d, inner_s)
        else:
            merged.insert(0, (d, s))
    return [d for d, _ in merged], [s for _, s in merged]


def left_pad(values, rank: int, fill: int) -> list[int]:
    """Extend a per-axis list to `rank` entries by adding outer axes."""
    values = [int(v) for v in values]
    return [fill] * (rank - len(values)) + values


def same_dtype(graph, node, what: str):
    """Copy ops move raw bytes: input and output element types must agree."""
    data = types(graph, node)[0]
    out = out_type(graph, node)
    if data.dtype != out.dtype:
        fail(graph, node, f"{what} input is {data.dtype.value} but output is {out.dtype.value}")
    return data, out


# --- 2-D pooling (NHWC) -------------------------------------------------------------------------------


def pool_infer(graph, node) -> list[TensorType]:
    data = types(graph, node)[0]
    if data.rank != 4:
        fail(graph, node, f"pooling needs a 4-D NHWC input, got {list(data.shape)}")
    (kh, kw), (sh, sw) = node.attrs["pool_size"], node.attrs.get("strides", (1, 1))
    top, left, bottom, right = node.attrs.get("padding", (0, 0, 0, 0))
    if min(kh, kw, sh, sw) < 1 or min(top, left, bottom, right) < 0:
        fail(graph, node, f"pool size {kh}x{kw}, strides {sh}x{sw} and padding must be positive")
    n, h, w, c = data.shape
    for size, k, stride, before, after in ((h, kh, sh, top, bottom), (w, kw, sw, left, right)):
        if size + before + after + stride + k > INT32_MAX:
            fail(graph, node, f"a {k}-tap window (stride {stride}) over {size} padded by ({before}, {after}) makes "
                              f"the kernel's index arithmetic overflow int32")
    out_h, out_w = (h + top + bottom - kh) // sh + 1, (w + left + right - kw) // sw + 1
    if out_h < 1 or out_w < 1:
        fail(graph, node, f"{kh}x{kw} window does not fit the padded {h}x{w} input")
    return [TensorType((n, out_h, out_w, c), data.dtype, out_type(graph, node).quant)]


def pool_prepare(graph, node) -> dict:
    """Geometry and clamp; TFLite Micro's PoolingPrepare checks (no rescaling is done)."""
    data, out = types(graph, node)[0], out_type(graph, node)
    if data.dtype != out.dtype or data.dtype not in (DType.INT8, DType.INT16, DType.FLOAT32):
        fail(graph, node, f"pooling runs int8, int16 or float32 to the same type, got "
                          f"{data.dtype.value} -> {out.dtype.value}")
    (kh, kw), (sh, sw) = node.attrs["pool_size"], node.attrs.get("strides", (1, 1))
    top, left, _, _ = node.attrs.get("padding", (0, 0, 0, 0))
    n, h, w, c = data.shape
    _, out_h, out_w, _ = out.shape
    for size, stride, pad, k, axis in ((h, sh, top, kh, "height"), (w, sw, left, kw, "width")):
        outs = out_h if axis == "height" else out_w
        # TFLite Micro divides by the in-image tap count; a window wholly in the padding has none.
        if -pad + k <= 0 or (outs - 1) * stride - pad >= size:
            fail(graph, node, f"a pooling window along the {axis} holds no input pixel")
    if not data.dtype.is_float:
        require_quant(graph, node, data, "input")
        require_quant(graph, node, out, "output")
        if abs(f32(data.quant.scale) - f32(out.quant.scale)) > 1e-6 or data.quant.zero_point != out.quant.zero_point:
            fail(graph, node, f"pooling needs equal input and output quantization (TFLite Micro does not "
                              f"rescale): input ({data.quant.scale}, {data.quant.zero_point}), "
                              f"output ({out.quant.scale}, {out.quant.zero_point})")
    lo, hi = clamp_range(graph, node)
    return {"batches": n, "in_h": h, "in_w": w, "channels": c, "out_h": out_h, "out_w": out_w,
            "filter_h": kh, "filter_w": kw, "stride_h": sh, "stride_w": sw, "pad_top": top, "pad_left": left,
            "act_min": lo, "act_max": hi, "kind": kernel_suffix(data.dtype)}


def pool_windows(p):
    """(out_y, out_x, y0, y1, x0, x1): each output pixel's window clipped to the image."""
    for oy in range(p["out_h"]):
        y = oy * p["stride_h"] - p["pad_top"]
        y0, y1 = max(0, y), min(p["in_h"], y + p["filter_h"])
        for ox in range(p["out_w"]):
            x = ox * p["stride_w"] - p["pad_left"]
            yield oy, ox, y0, y1, max(0, x), min(p["in_w"], x + p["filter_w"])


def pool_macs(graph, node) -> int:
    kh, kw = node.attrs["pool_size"]
    return out_type(graph, node).size * kh * kw
