"""Which ops run in int8, and how each one's output quantization is chosen.

One rule per op that has an int8 kernel; an op without a rule has none (the pass refuses it unless the user
keeps it in float). The output policies follow what the kernels' `prepare` accepts, which is what TFLite
Micro accepts:
- calibrated: the output's own calibrated range (conv, dense, add, mean, relu, ...); a fused activation
  needs nothing more, its clamp comes from the output range (relu: the range starts at 0, so zp = -128);
- same_as_input: the input's quantization, because the kernel does not rescale (pooling, reshape, pad,
  strided_slice, transpose, relu6 which clamps in the input's quantization);
- equal_inputs: concatenate copies raw bytes, so every input must carry the output's quantization: the
  output covers the union of the input ranges and inputs that differ are requantized (qnn.quantize) first;
- fixed: softmax and sigmoid output (1/256, -128), tanh (1/128, 0), TFLite's fixed output scales.
Weight inputs (conv, depthwise, transpose conv, dense) are quantized symmetric int8 per output channel along
`weight_axis`, their bias to int32 with scale in_s * w_s.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    output: str = "calibrated"  # calibrated | same_as_input | equal_inputs | fixed
    fixed: tuple[float, int] | None = None  # (scale, zero point) for output "fixed"
    weight: int | None = None  # input index of the weight
    weight_axis: int | None = None  # its output-channel axis
    bias: int | None = None  # input index of the bias
    follows_input: bool = False  # pure data movement: stays in float when all its data inputs are float
    min_out_scale_ratio: float = 0.0  # output scale must exceed this times the largest input scale


_CONV = dict(weight=1, bias=2)
_ADD_BOUND = 2.0 / (1 << 20)  # ADD/SUB: 2 max(s1, s2) / (2^20 out_s) must stay below 1

RULES: dict[str, Rule] = {
    "nn.conv2d": Rule(weight_axis=0, **_CONV),
    "nn.depthwise_conv2d": Rule(weight_axis=3, **_CONV),
    "nn.conv2d_transpose": Rule(weight_axis=0, **_CONV),
    "nn.dense": Rule(weight_axis=0, **_CONV),
    "add": Rule(min_out_scale_ratio=_ADD_BOUND),
    "subtract": Rule(min_out_scale_ratio=_ADD_BOUND),
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
    "nn.softmax": Rule(output="fixed", fixed=(1.0 / 256, -128)),
    "sigmoid": Rule(output="fixed", fixed=(1.0 / 256, -128)),
    "tanh": Rule(output="fixed", fixed=(1.0 / 128, 0)),
}
