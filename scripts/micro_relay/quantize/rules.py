"""Which ops run in int8 (and int16), and how each one's output quantization is chosen.

One rule per op that has an int8 kernel; an op without a rule has none (the pass refuses it unless the user
keeps it in float). Every rule also holds for int16 activations (TFLite's 16x8 scheme: symmetric, zero
point 0) unless `int16` is False: sigmoid and tanh, whose int16 kernels the ops refuse (ops/sigmoid.py).
The output policies follow what the kernels' `prepare` accepts, which is what TFLite Micro accepts:
- calibrated: the output's own calibrated range (conv, dense, add, mean, relu, ...); a fused activation
  needs nothing more, its clamp comes from the output range (relu: the range starts at 0, so zp = -128);
- same_as_input: the input's quantization, because the kernel does not rescale (pooling, reshape, pad,
  strided_slice, transpose, relu6 which clamps in the input's quantization);
- equal_inputs: concatenate copies raw bytes, so every input must carry the output's quantization: the
  output covers the union of the input ranges and inputs that differ are requantized (qnn.quantize) first;
- fixed: softmax and sigmoid output (1/256, -128), tanh (1/128, 0), TFLite's fixed output scales; in
  int16 softmax outputs (1/32768, 0) (`fixed16`).
Weight inputs (conv, depthwise, transpose conv, dense) are quantized symmetric int8 per output channel along
`weight_axis`, their bias to int32 (int64 for int16 activations) with scale in_s * w_s.
ADD and SUB rescale their inputs after a left shift of 20 bits in int8 but 15 in int16, hence two bounds.
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
    follows_input: bool = False  # pure data movement: float (int16) when all its data inputs are float (int16)
    min_out_scale_ratio: float = 0.0  # output scale must exceed this times the largest input scale
    int16: bool = True  # has an int16 kernel
    fixed16: tuple[float, int] | None = None  # (scale, zero point) for output "fixed" in int16
    min_out_scale_ratio16: float = 0.0  # min_out_scale_ratio in int16


_CONV = dict(weight=1, bias=2)
_ADD_BOUND = dict(min_out_scale_ratio=2.0 / (1 << 20),  # ADD/SUB: 2 max(s1, s2) / (2^20 out_s) below 1
                  min_out_scale_ratio16=2.0 / (1 << 15))  # in int16: 2 max(s1, s2) / (2^15 out_s)

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
    "sigmoid": Rule(output="fixed", fixed=(1.0 / 256, -128), int16=False),
    "tanh": Rule(output="fixed", fixed=(1.0 / 128, 0), int16=False),
}
