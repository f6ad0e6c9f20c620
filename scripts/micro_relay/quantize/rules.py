"""Which ops run in int8 (and int16), and how each one's output quantization is chosen.

One rule per op that has an int8 kernel; an op without a rule has none (the pass refuses it unless the user
keeps it in float): exp, log, gelu, erf, negative, layer_norm, gru and the other float-only ops; lstm and
svdf, whose integer kernels need a scale per gate and state that post-training calibration of the IR does
not produce; cast (an int8 -> int32 cast would give raw codes, not values); zeros_like (its raw zeros are
real zero only at zero point 0) and assign (a state's quantization would have to outlive one calibration).
Every rule also holds for int16 activations (TFLite's 16x8 scheme: symmetric, zero point 0) unless `int16`
is False: the op has no int16 kernel, or TFLite Micro does not run it on int16
(REDUCE_MAX/MIN, ARG_MAX/MIN, RESIZE_BILINEAR, GATHER, GATHER_ND, FILL, MIRROR_PAD, SPACE_TO_DEPTH,
DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, and TILE, which it lacks), so that every quantized
graph is one TFLite Micro runs; a copy after an int16 layer then reads an int8 version of it.
Tensors that are not float in the float graph (comparison results, argmax indices, take's indices) are
neither calibrated nor converted: every node reads and writes them as they are.
The output policies follow what the kernels' `prepare` accepts, which is what TFLite Micro accepts:
- calibrated: the output's own calibrated range (conv, dense, add, mean, relu, ...); a fused activation
  needs nothing more, its clamp comes from the output range (relu: the range starts at 0, so zp = -128);
- same_as_input: the input's quantization, because the kernel does not rescale (pooling, reshape, pad,
  strided_slice, transpose, relu6 which clamps in the input's quantization, the byte-copy ops (tile,
  take, space_to_depth, ...), resize2d, which blends raw values, and max/min reductions, which compare
  them);
- equal_inputs: concatenate copies raw bytes, and maximum, minimum and where pick raw values, so every
  float-valued input must carry the output's quantization: the output covers the union of the input
  ranges and inputs that differ are requantized (qnn.quantize) first (where's bool condition is left be);
- fixed: softmax and sigmoid output (1/256, -128), tanh and l2_normalize (1/128, 0), TFLite's fixed output
  scales; in int16 softmax, sigmoid and tanh output (2^-15, 0) (`fixed16`).
Some kernels bound the output scale by the input scales: ADD and SUB (below), hard_swish (its output
exponent must not be positive: out_s > in_s / 128), divide (s1 / (s2 so) in [2^6, 2^23), so a wide
calibrated output is narrowed, `divide_bounds`). int16 sigmoid and tanh move the input to the table's
scale 1/12288 with a multiplier in 1..32767, so their input scale lies in [2^-30 / 12288, 32767 / 12288]:
a wider input is requantized to the upper end (inputs beyond +-87000, where both have long saturated,
clip), a narrower one (inputs within +-2e-9) to the lower. In int8 their input scale must be at least
2^-28: below it TFLite Micro's input radius, 15 * 2^27 / 2^shift computed as an int, overflows (it then
saturates every input, where the exact answer is the middle code). PReLU's alpha is int8 even in an int16 PReLU
(`int8_inputs`), as TFLite Micro requires.
Weight inputs (conv, depthwise, transpose conv, dense) are quantized symmetric int8 per output channel along
`weight_axis`, their bias to int32 (int64 for int16 activations) with scale in_s * w_s.
ADD and SUB rescale their inputs after a left shift of 20 bits in int8 but 15 in int16, hence two bounds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    output: str = "calibrated"  # calibrated | same_as_input | equal_inputs | fixed
    fixed: tuple[float, int] | None = None  # (scale, zero point) for output "fixed"
    weight: int | None = None  # input index of the weight
    weight_axis: int | None = None  # its output-channel axis
    bias: int | None = None  # input index of the bias
    follows_input: bool = False  # pure data movement: float (int16) when all its data inputs are float (int16)
    min_out_scale_ratio: float = 0.0  # output scale must exceed this times the largest input scale
    int16: bool = True  # has an int16 kernel
    fixed16: tuple[float, int] | None = None  # (scale, zero point) for output "fixed" in int16
    min_out_scale_ratio16: float = 0.0  # min_out_scale_ratio in int16
    out_scale_bounds: Callable | None = None  # input quants -> (lowest, highest) output scale, int8
    in_scales: tuple[float, float] | None = None  # int8 inputs with a scale outside are requantized into it
    in_scales16: tuple[float, float] | None = None  # in_scales for int16 inputs
    int8_inputs: tuple[int, ...] = ()  # input positions that stay int8 in an int16 node


def divide_bounds(quants) -> tuple[float, float]:
    """int8 DIV: s1 / (s2 so) in [2^6, 2^23) keeps TFLite Micro's shifts defined (ops/divide.py), with a margin
    for the float32 rounding of the ratio."""
    ratio = quants[0].scale / quants[1].scale
    return ratio / 2.0 ** 23 * (1 + 1e-5), ratio / 2.0 ** 6 * (1 - 1e-5)


_CONV = dict(weight=1, bias=2)
_ADD_BOUND = dict(min_out_scale_ratio=2.0 / (1 << 20),  # ADD/SUB: 2 max(s1, s2) / (2^20 out_s) below 1
                  min_out_scale_ratio16=2.0 / (1 << 15))  # in int16: 2 max(s1, s2) / (2^15 out_s)

_Q15 = (1.0 / 32768, 0)
_TABLE_IN_SCALES = (2.0 ** -30 / 12288.0, 32767.0 / 12288.0)
_Q4_IN_SCALES = (2.0 ** -28, float("inf"))  # LOGISTIC/TANH int8: the input radius fits TFLite Micro's int
_COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
_COPIES = ("take", "gather_nd", "tile", "broadcast_to", "nn.mirror_pad", "nn.space_to_depth", "nn.depth_to_space",
           "nn.space_to_batch_nd", "nn.batch_to_space_nd")
_COPIES16 = ("broadcast_to",)  # the only copy TFLite Micro runs on int16

RULES: dict[str, Rule] = {
    "nn.conv2d": Rule(weight_axis=0, **_CONV),
    "nn.depthwise_conv2d": Rule(weight_axis=3, **_CONV),
    "nn.conv2d_transpose": Rule(weight_axis=0, **_CONV),
    "nn.dense": Rule(weight_axis=0, **_CONV),
    "add": Rule(**_ADD_BOUND),
    "subtract": Rule(**_ADD_BOUND),
    "multiply": Rule(),
    "mean": Rule(),
    "nn.relu": Rule(),
    "nn.leaky_relu": Rule(),
    "nn.relu6": Rule(output="same_as_input"),
    "nn.max_pool2d": Rule(output="same_as_input", follows_input=True),
    "nn.avg_pool2d": Rule(output="same_as_input", follows_input=True),
    "reshape": Rule(output="same_as_input", follows_input=True),
    "nn.pad": Rule(output="same_as_input", follows_input=True),
    "strided_slice": Rule(output="same_as_input", follows_input=True),
    "transpose": Rule(output="same_as_input", follows_input=True),
    "concatenate": Rule(output="equal_inputs", follows_input=True),
    "nn.softmax": Rule(output="fixed", fixed=(1.0 / 256, -128), fixed16=(1.0 / 32768, 0)),
    "sigmoid": Rule(output="fixed", fixed=(1.0 / 256, -128), fixed16=_Q15, in_scales=_Q4_IN_SCALES,
                    in_scales16=_TABLE_IN_SCALES),
    "tanh": Rule(output="fixed", fixed=(1.0 / 128, 0), fixed16=_Q15, in_scales=_Q4_IN_SCALES,
                 in_scales16=_TABLE_IN_SCALES),
    # element-wise unary math
    "abs": Rule(),
    "rsqrt": Rule(),
    "nn.elu": Rule(int16=False),
    "nn.hard_swish": Rule(min_out_scale_ratio=1.0 / 64, int16=False),  # out_s > in_s / 128, with room
    "nn.l2_normalize": Rule(output="fixed", fixed=(1.0 / 128, 0), int16=False),
    # element-wise binary math
    "maximum": Rule(output="equal_inputs"),
    "minimum": Rule(output="equal_inputs"),
    "where": Rule(output="equal_inputs"),
    "squared_difference": Rule(int16=False),
    "divide": Rule(out_scale_bounds=divide_bounds, int16=False),
    "nn.prelu": Rule(int8_inputs=(1,)),
    "nn.batch_matmul": Rule(),
    **{op: Rule(int16=False) for op in _COMPARISONS},  # bool outputs; int8 inputs each keep their own scale
    # reductions and resizing
    "sum": Rule(),
    "max": Rule(output="same_as_input", int16=False),
    "min": Rule(output="same_as_input", int16=False),
    "argmax": Rule(int16=False),  # int32 index output
    "argmin": Rule(int16=False),
    "image.resize2d": Rule(output="same_as_input", follows_input=True, int16=False),
    # data movement: raw copies
    **{op: Rule(output="same_as_input", follows_input=True, int16=op in _COPIES16) for op in _COPIES},
    "full": Rule(output="same_as_input", follows_input=True, int16=False),  # FILL of a runtime value
}
