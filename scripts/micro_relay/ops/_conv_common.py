"""What nn.conv2d, nn.depthwise_conv2d and nn.conv2d_transpose share: window geometry, the TFLite Micro
quantization checks and per-channel multipliers, numpy window gathering, and requantization.

Every quantized convolution in TFLite Micro requantizes per output channel with (M, s) from the double
in_s * w_s[c] / out_s (PopulateConvolutionQuantizationParams; a per-tensor weight scale is broadcast), ignores
the weight zero point, and for int16 activations ignores the activation zero points too. We refuse nonzero
zero points where TFLite Micro would ignore them, so a model never silently computes something else.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..arith.fixedpoint import mbqm32, mbqm64, mbqm_single, wrap32
from ..arith.multiplier import quantize_multipliers
from ..ir.registry import Attr, op_where
from ..ir.types import INT32_MAX, DType
from ._common import (apply_clamp, clamp_range, fail, kernel_suffix, out_type, require_quant, single_rounding,
                      types)

PAIR_OF_ONES = Attr(tuple, (1, 1))
NO_PADDING = Attr(tuple, (0, 0, 0, 0))  # (top, left, bottom, right)


@dataclass(frozen=True)
class Geometry:
    """Static shape of one convolution window walk (NHWC data). For transpose conv, `in_*` is the small
    input that is scattered and `out_*` the large output."""

    batches: int
    in_h: int
    in_w: int
    in_c: int
    out_h: int
    out_w: int
    out_c: int
    k_h: int
    k_w: int
    filter_c: int  # input channels one filter reads (in_c / groups for conv, 1 for depthwise)
    stride_h: int
    stride_w: int
    dil_h: int
    dil_w: int
    pad_top: int
    pad_left: int

    def c_initializer(self) -> str:
        """The nested designated initializer of an mr_conv_geometry field."""
        return "{" + ", ".join(f".{k} = {v}" for k, v in asdict(self).items()) + "}"


def is_pointwise(g: Geometry) -> bool:
    """The int8 kernel's matrix-product condition (mr_conv2d_s8, crt/src/mr_conv2d.c and mr_conv2d_dsp.c): 1x1,
    stride 1, no padding, input and output spatially equal, one group."""
    return (g.k_h == 1 and g.k_w == 1 and g.stride_h == 1 and g.stride_w == 1 and g.pad_top == 0
            and g.pad_left == 0 and g.out_h == g.in_h and g.out_w == g.in_w and g.filter_c == g.in_c)


def inputs3(graph, node):
    """(data, weight, bias) types; bias None when absent (or when the node has only two inputs)."""
    t = types(graph, node) + [None]
    return t[0], t[1], t[2]


def window_attrs(graph, node) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int, int, int]]:
    """(strides, dilation, padding) after checking they are positive / non-negative and of the right length."""
    strides = tuple(node.attrs.get("strides", (1, 1)))
    dilation = tuple(node.attrs.get("dilation", (1, 1)))
    padding = tuple(node.attrs.get("padding", (0, 0, 0, 0)))
    if len(strides) != 2 or min(strides) < 1:
        fail(graph, node, f"strides must be two positive ints, got {list(strides)}")
    if len(dilation) != 2 or min(dilation) < 1:
        fail(graph, node, f"dilation must be two positive ints, got {list(dilation)}")
    if len(padding) != 4 or min(padding) < 0:
        fail(graph, node, f"padding must be four non-negative ints (top, left, bottom, right), got {list(padding)}")
    return strides, dilation, padding


def check_index_range(graph, node, what: str, *terms: int) -> None:
    """The kernels walk window coordinates in int32 (out * stride - pad + tap * dilation and the loop bounds
    around them); refuse geometry whose coordinates could leave int32, since signed overflow is undefined."""
    if sum(int(t) for t in terms) > INT32_MAX:
        fail(graph, node, f"{what} makes the kernel's index arithmetic overflow int32 ({' + '.join(map(str, terms))})")


def windowed_size(graph, node, size: int, kernel: int, stride: int, dilation: int, before: int, after: int) -> int:
    """Output length of a strided, dilated window over a padded axis (at least one window must fit)."""
    effective = (kernel - 1) * dilation + 1
    check_index_range(graph, node, f"a {kernel}-tap window (stride {stride}, dilation {dilation}) over {size} "
                                   f"padded by ({before}, {after})", size, before, after, stride, effective)
    span = size + before + after - effective
    if span < 0:
        fail(graph, node, f"a {kernel}-tap window (dilation {dilation}) does not fit an axis of {size} padded by "
                          f"({before}, {after})")
    return span // stride + 1


def quant_params(graph, node, data, weight, channel_axis: int, channels: int) -> dict:
    """Checks and per-channel (mult, shift) for a quantized convolution, as TFLite Micro's Prepare does them."""
    out = out_type(graph, node)
    for t, what in ((data, "input"), (weight, "weight"), (out, "output")):
        require_quant(graph, node, t, what)
    if weight.dtype != DType.INT8:
        fail(graph, node, f"{data.dtype.value} {node.op} needs int8 weights, got {weight.dtype.value}")
    wq = weight.quant
    if len(wq.scales) > 1:
        axis = channel_axis if wq.axis is None else wq.axis
        if len(wq.scales) != channels or weight.shape[axis] != channels:
            fail(graph, node, f"weight has {len(wq.scales)} scales on axis {axis} of {list(weight.shape)}; "
                              f"TFLite Micro needs one per output channel ({channels}, axis {channel_axis})")
    if any(z != 0 for z in wq.zero_points):
        fail(graph, node, "weight zero points must be 0 (TFLite Micro ignores them)")
    if data.dtype == DType.INT16 and (data.quant.zero_point != 0 or out.quant.zero_point != 0):
        fail(graph, node, "int16 input and output zero points must be 0 (TFLite Micro ignores them)")
    scales = wq.scales if len(wq.scales) > 1 else wq.scales * channels
    mult, shift = quantize_multipliers([data.quant.scale * s / out.quant.scale for s in scales],
                                       where=op_where(graph, node))
    lo, hi = clamp_range(graph, node)
    return {"mult": mult, "shift": shift, "in_zp": data.quant.zero_point, "out_zp": out.quant.zero_point,
            "act_min": lo, "act_max": hi}


def check_int8_kernel_limits(graph, node, p: dict) -> None:
    """What the int8 conv and depthwise kernels assume to stay bit-exact (prepare refuses the rest, which no
    converter produces): an input zero point in [-128, 127], so that q - zp fits 16 bits, and no multiplier
    equal to INT32_MIN (only a negative scale within 2^-32 of a power of two gives one), the one value for
    which SRDHM saturates."""
    if not -128 <= p["in_zp"] <= 127:
        fail(graph, node, f"int8 input zero point {p['in_zp']} lies outside [-128, 127]")
    if np.any(np.asarray(p["mult"], dtype=np.int64) == -2 ** 31):
        fail(graph, node, "an effective scale quantizes to the multiplier INT32_MIN, which the kernel does not "
                          "support (negative scale)")


def check_bias_headroom(graph, node, terms: int, in_dtype, wide: bool) -> None:
    """Refuse a constant bias so large that adding it to the accumulator can overflow: int32 accumulators
    (signed overflow is undefined in C, and in TFLite Micro) and int64 ones, which TFLite Micro's 64-bit
    MultiplyByQuantizedMultiplier requires within +-2^47. `terms` products of |x - zp| <= 256 (int8) or 32768
    (int16) by |w| <= 128 bound the rest of the sum; layers whose sum alone can overflow are not the bias's
    fault and are left as TFLite Micro leaves them."""
    bias = graph.constant(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    if bias is None or bias.size == 0:
        return
    worst = terms * (256 if in_dtype == DType.INT8 else 32768) * 128
    limit = (1 << 47) if wide else INT32_MAX
    if worst >= limit:
        return
    peak = max(-int(bias.min()), int(bias.max()))
    if peak > limit - worst:
        fail(graph, node, f"bias value {peak if int(bias.max()) == peak else -peak} leaves the "
                          f"{'int64 (+-2^47)' if wide else 'int32'} accumulator no room for {terms} products")


def check_wide_shifts(graph, node, shift: np.ndarray) -> None:
    """The 64-bit requantization is defined for shifts in [-31, 7] only (TFLite Micro asserts it)."""
    if shift.size and (shift.min() < -31 or shift.max() > 7):
        fail(graph, node, f"effective scale needs a shift outside [-31, 7] ({int(shift.min())}..{int(shift.max())}),"
                          " which TFLite Micro's 64-bit requantization does not support")


def check_float(graph, node, data, weight, bias) -> dict:
    if weight.dtype != DType.FLOAT32 or (bias is not None and bias.dtype != DType.FLOAT32):
        fail(graph, node, "float32 input needs float32 weight and bias")
    lo, hi = clamp_range(graph, node)
    return {"act_min": lo, "act_max": hi}


def check_bias_size(graph, node, bias, channels: int) -> None:
    if bias is not None and bias.size != channels:
        fail(graph, node, f"bias has {bias.size} elements, expected one per output channel ({channels})")


def folded_bias(graph, node, p: dict, weight_sums) -> np.ndarray | None:
    """bias - in_zp * sum(w) per channel (int32, wrapping like the kernel's accumulator): lets a kernel drop
    the zero-point subtraction for windows that lie wholly inside the image. None when the weight or bias
    is not a compile-time constant."""
    weight_name, bias_name = node.inputs[1], (node.inputs[2] if len(node.inputs) > 2 else "")
    if not graph.tensors[weight_name].is_constant or (bias_name and not graph.tensors[bias_name].is_constant):
        return None
    bias = graph.tensors[bias_name].data.astype(np.int64) if bias_name else 0
    return wrap32(bias - p["in_zp"] * np.asarray(weight_sums, dtype=np.int64)).astype(np.int32)


# ---- numpy helpers shared by the references ----

def windows(x: np.ndarray, g: Geometry, fill=0) -> np.ndarray:
    """(N, OH, OW, KH, KW, C) input windows; taps outside the image read `fill`."""
    n, h, w, c = x.shape
    need_h = (g.out_h - 1) * g.stride_h + (g.k_h - 1) * g.dil_h + 1
    need_w = (g.out_w - 1) * g.stride_w + (g.k_w - 1) * g.dil_w + 1
    padded = np.pad(x, ((0, 0), (g.pad_top, max(0, need_h - g.pad_top - h)),
                        (g.pad_left, max(0, need_w - g.pad_left - w)), (0, 0)), constant_values=fill)
    taps = []
    for fy in range(g.k_h):
        for fx in range(g.k_w):
            y0, x0 = fy * g.dil_h, fx * g.dil_w
            taps.append(padded[:, y0:y0 + (g.out_h - 1) * g.stride_h + 1:g.stride_h,
                               x0:x0 + (g.out_w - 1) * g.stride_w + 1:g.stride_w, :])
    return np.stack(taps, axis=3).reshape(n, g.out_h, g.out_w, g.k_h, g.k_w, c)


def inside_image(g: Geometry) -> np.ndarray:
    """(1, OH, OW, KH, KW) bool: which taps of each window read the image (TFLite Micro skips the others)."""
    return windows(np.ones((1, g.in_h, g.in_w, 1), dtype=bool), g, False)[..., 0]


def exact_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer matrix product, through float64 BLAS when every partial sum stays below 2^53 (exact), else int64."""
    bound = float(np.abs(a).max(initial=0)) * float(np.abs(b).max(initial=0)) * max(a.shape[-1], 1)
    if bound < 2.0 ** 52:
        return np.rint(a.astype(np.float64) @ b.astype(np.float64)).astype(np.int64)
    return a.astype(np.int64) @ b.astype(np.int64)


def requantize(acc: np.ndarray, bias, p: dict, out_dtype) -> np.ndarray:
    """acc (int64, channels last) + bias, then TFLite Micro's requantization (or, for a node with rounding
    "single", the product rounded once), output offset and clamp."""
    if bias is not None:
        acc = acc + bias.astype(np.int64)
    if p.get("single"):
        scaled = mbqm_single(wrap32(acc), p["mult"], p["shift"])
    elif p["wide"]:
        scaled = mbqm64(acc, p["mult"], p["shift"])
    else:
        scaled = mbqm32(wrap32(acc), p["mult"], p["shift"])
    return apply_clamp(scaled + p["out_zp"], p["act_min"], p["act_max"], out_dtype)


def float_finish(acc: np.ndarray, bias, p: dict, always_add_bias: bool) -> np.ndarray:
    """+ bias (TFLite Micro's conv and depthwise add 0.0f when there is none; transpose conv does not), clamp."""
    if bias is not None:
        acc = acc + bias.astype(np.float32)
    elif always_add_bias:
        acc = acc + np.float32(0.0)
    return apply_clamp(acc, p["act_min"], p["act_max"], np.float32)


def prepare_convolution(graph, node, g, channel_axis: int) -> tuple[dict, DType | None]:
    """The start every convolution's prepare shares: check the bias size, then either the float clamp or,
    for int8/int16, the requantization multipliers per output channel (the weight's `channel_axis`).
    Returns (params, bias dtype or None); the caller adds its own integer checks."""
    data, weight, bias = inputs3(graph, node)
    check_bias_size(graph, node, bias, g.out_c)
    params = {"geometry": g, "kind": kernel_suffix(data.dtype), "wide": False}
    if data.dtype == DType.FLOAT32:
        params.update(check_float(graph, node, data, weight, bias))
        return params, None
    if data.dtype not in (DType.INT8, DType.INT16) or out_type(graph, node).dtype != data.dtype:
        fail(graph, node, f"{node.op.removeprefix('nn.')} supports int8, int16 and float32 (output like input), "
                          f"got {data.dtype.value}")
    params.update(quant_params(graph, node, data, weight, channel_axis, g.out_c))
    params["single"] = single_rounding(graph, node, data.dtype, params["shift"])
    return params, None if bias is None else bias.dtype
