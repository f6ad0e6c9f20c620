"""Single-op TFLite models for the kernel tests, written with Micro Relay's own TFLite writer.

Each builder takes explicit, readable parameters (with defaults, so a named case states only what it is
about) and returns model bytes. Builders only make models that TFLite Micro's Prepare accepts (see
../shared/TFLM_ARITHMETIC.md): int16 zero points 0, conv filter zero points 0, FC bias scale in_s*w_s,
pooling/concat/pad with equal quantization in and out, fixed softmax/logistic/tanh output scales.
`check` then runs compiled C, the reference interpreter and TFLite Micro on seeded random inputs and asserts
they agree; TFLite Micro is the oracle.

Constant data (weights, biases) comes from a numpy generator seeded by the caller, so hypothesis draws one
integer instead of thousands of weights, and a failing example is reproduced by its printed parameters.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from micro_relay.frontend.tflite import read_tflite
from micro_relay.frontend.tflite.writer import TFLiteBuilder

from .model_check import assert_matches, compare_with_tflm, random_inputs

INT_LIMITS = {"int8": (-128, 127), "int16": (-32768, 32767), "int32": (-(2 ** 31), 2 ** 31 - 1)}
# Typical |x - zp| of a uniformly random integer input: scales accumulators to pick output scales.
_INPUT_SPREAD = {"int8": 74.0, "int16": 18918.0}
_WEIGHT_SPREAD = 73.0  # of int8 weights uniform in [-127, 127]


# -- running ---------------------------------------------------------------------------------------------

def check(model: bytes, float_scale: float = 1.0, seeds=(0, 1, 2), samples=None) -> None:
    """Compiled C and reference vs TFLite Micro on `samples`, or on random inputs: float inputs standard
    normal times float_scale (to reach clamps and saturating tails), integer inputs uniform over the type."""
    if samples is None:
        graph = read_tflite(model, "test model")
        samples = []
        for seed in seeds:
            values = random_inputs(graph, np.random.default_rng(seed))
            samples.append([v * np.float32(float_scale) if v.dtype.kind == "f" else v for v in values])
    assert_matches(compare_with_tflm(model, samples=samples))


# -- shared strategies -----------------------------------------------------------------------------------

def log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    """Scales spread evenly over orders of magnitude."""
    return st.floats(math.log(lo), math.log(hi)).map(math.exp)


def zero_points(dtype: str) -> st.SearchStrategy[int]:
    """int8 zero points anywhere in range; int16 ones are 0, as TFLite's int16 kernels require."""
    if dtype == "int8":
        return st.integers(-128, 127)
    return st.just(0)


ACTIVATIONS = st.sampled_from(["NONE", "RELU", "RELU6", "RELU_N1_TO_1"])
PADDINGS = st.sampled_from(["SAME", "VALID"])
SEEDS = st.integers(0, 2 ** 32 - 1)


def out_size(size: int, kernel: int, stride: int, dilation: int, padding: str) -> int:
    """TFLite's ComputeOutSize (0 when a VALID window does not fit)."""
    effective = (kernel - 1) * dilation + 1
    if padding == "SAME":
        return (size + stride - 1) // stride
    return max(0, (size - effective) // stride + 1)


def broadcast_shape(a, b) -> tuple[int, ...]:
    return tuple(int(d) for d in np.broadcast_shapes(tuple(a), tuple(b)))


# -- helpers ---------------------------------------------------------------------------------------------

def _quant(dtype: str, scale, zero_point) -> dict:
    return {} if dtype == "float32" else {"scale": scale, "zero_point": zero_point}


def _weight_scales(rng, count: int, per_channel: bool, base: float = 0.01) -> list[float]:
    if per_channel:
        return [float(base * 2.0 ** e) for e in rng.uniform(-1.0, 1.0, count)]
    return [base]


def _out_scale(dtype: str, in_scale: float, w_scales, terms: int, spread: float) -> float:
    """An output scale for a sum of `terms` random products: a typical accumulator lands at 1/spread of
    the output range, so spread < 1 saturates often and large spreads leave few output levels."""
    typical = _WEIGHT_SPREAD * _INPUT_SPREAD[dtype] * math.sqrt(terms)
    return float(in_scale * np.mean(w_scales) * typical * spread / INT_LIMITS[dtype][1])


def _conv_out_quant(dtype: str, in_scale: float, w_scales, terms: int, spread: float, zero_point: int) -> dict:
    if dtype == "float32":
        return {}
    return {"scale": _out_scale(dtype, in_scale, w_scales, terms, spread), "zero_point": zero_point}


def _bias(b: TFLiteBuilder, rng, dtype: str, bias: str | None, count: int, terms: int, scale=None) -> str | None:
    """An optional bias of `count` values on the scale of the accumulator it is added to."""
    if bias is None:
        return None
    if bias == "float32":
        return b.tensor("bias", (count,), "float32", data=rng.standard_normal(count) * 0.5)
    spread = int(_WEIGHT_SPREAD * _INPUT_SPREAD[dtype] * math.sqrt(terms))
    data = rng.integers(-spread, spread + 1, count)
    kwargs = {} if scale is None else {"scale": scale, "zero_point": 0}
    return b.tensor("bias", (count,), bias, data=data, **kwargs)


def _default_bias(dtype: str, bias: str | None) -> str | None:
    if bias != "default":
        return bias
    return {"int8": "int32", "int16": "int64", "float32": "float32"}[dtype]


def _with_bias(inputs: list, bias: str | None) -> list:
    """A bias-less conv lists no bias input at all: TFLite Micro's depthwise Prepare crashes on a -1 bias
    index (it counts inputs, then dereferences the missing tensor)."""
    return inputs + [bias] if bias else inputs


def _weights(b: TFLiteBuilder, rng, dtype: str, shape, scales, axis: int, terms: int) -> str:
    if dtype == "float32":
        return b.tensor("filter", shape, "float32", data=rng.standard_normal(shape) / math.sqrt(terms))
    return b.tensor("filter", shape, "int8", data=rng.integers(-127, 128, shape), scale=scales, zero_point=0,
                    axis=axis if len(scales) > 1 else None)


# -- convolutions ----------------------------------------------------------------------------------------

def conv2d_model(dtype="int8", input_shape=(1, 8, 8, 3), out_channels=4, kernel=(3, 3), stride=(1, 1),
                 dilation=(1, 1), padding="SAME", activation="NONE", per_channel=True, bias="default",
                 groups=1, in_scale=0.05, in_zp=0, out_zp=0, out_spread=3.0, quantized_bias_type=None,
                 seed=0) -> bytes:
    """CONV_2D: filter [out_channels, kh, kw, in_channels / groups], per-channel scales on axis 0.
    `quantized_bias_type` "int32" makes a bias-less int16 conv accumulate in int32 in TFLite Micro."""
    rng = np.random.default_rng(seed)
    n, h, w, c = input_shape
    kh, kw = kernel
    oh = out_size(h, kh, stride[0], dilation[0], padding)
    ow = out_size(w, kw, stride[1], dilation[1], padding)
    terms = kh * kw * (c // groups)
    scales = _weight_scales(rng, out_channels, per_channel)
    b = TFLiteBuilder()
    x = b.tensor("input", input_shape, dtype, **_quant(dtype, in_scale, in_zp))
    f = _weights(b, rng, dtype, (out_channels, kh, kw, c // groups), scales, 0, terms)
    bias_t = _bias(b, rng, dtype, _default_bias(dtype, bias), out_channels, terms)
    out_q = _conv_out_quant(dtype, in_scale, scales, terms, out_spread, out_zp)
    y = b.tensor("output", (n, oh, ow, out_channels), dtype, **out_q)
    b.op("CONV_2D", _with_bias([x, f], bias_t), [y], stride=stride, dilation=dilation, padding=padding,
         activation=activation, quantized_bias_type=quantized_bias_type)
    return b.build()


def depthwise_model(dtype="int8", input_shape=(1, 8, 8, 3), depth_multiplier=1, kernel=(3, 3), stride=(1, 1),
                    dilation=(1, 1), padding="SAME", activation="NONE", per_channel=True, bias="default",
                    in_scale=0.05, in_zp=0, out_zp=0, out_spread=3.0, seed=0) -> bytes:
    """DEPTHWISE_CONV_2D: filter [1, kh, kw, in_channels * multiplier], per-channel scales on axis 3."""
    rng = np.random.default_rng(seed)
    n, h, w, c = input_shape
    kh, kw = kernel
    channels = c * depth_multiplier
    oh = out_size(h, kh, stride[0], dilation[0], padding)
    ow = out_size(w, kw, stride[1], dilation[1], padding)
    terms = kh * kw
    scales = _weight_scales(rng, channels, per_channel)
    b = TFLiteBuilder()
    x = b.tensor("input", input_shape, dtype, **_quant(dtype, in_scale, in_zp))
    f = _weights(b, rng, dtype, (1, kh, kw, channels), scales, 3, terms)
    bias_t = _bias(b, rng, dtype, _default_bias(dtype, bias), channels, terms)
    out_q = _conv_out_quant(dtype, in_scale, scales, terms, out_spread, out_zp)
    y = b.tensor("output", (n, oh, ow, channels), dtype, **out_q)
    b.op("DEPTHWISE_CONV_2D", _with_bias([x, f], bias_t), [y], stride=stride, dilation=dilation, padding=padding,
         activation=activation, depth_multiplier=depth_multiplier)
    return b.build()


def transpose_conv_model(dtype="int8", output_shape=(1, 8, 8, 4), in_channels=3, kernel=(3, 3), stride=(2, 2),
                         padding="SAME", activation="NONE", per_channel=True, bias="default", in_scale=0.05,
                         in_zp=0, out_zp=0, out_spread=3.0, seed=0) -> bytes:
    """TRANSPOSE_CONV: inputs (output_shape, filter [out_ch, kh, kw, in_ch], input, bias); the input size is
    the forward conv's output size for the given output."""
    rng = np.random.default_rng(seed)
    n, oh, ow, oc = output_shape
    kh, kw = kernel
    ih = out_size(oh, kh, stride[0], 1, padding)
    iw = out_size(ow, kw, stride[1], 1, padding)
    terms = max(1, (kh * kw) // (stride[0] * stride[1])) * in_channels
    scales = _weight_scales(rng, oc, per_channel)
    b = TFLiteBuilder()
    shape_t = b.tensor("output_shape", (4,), "int32", data=output_shape)
    f = _weights(b, rng, dtype, (oc, kh, kw, in_channels), scales, 0, terms)
    x = b.tensor("input", (n, ih, iw, in_channels), dtype, **_quant(dtype, in_scale, in_zp))
    bias_t = _bias(b, rng, dtype, _default_bias(dtype, bias), oc, terms)
    out_q = _conv_out_quant(dtype, in_scale, scales, terms, out_spread, out_zp)
    y = b.tensor("output", output_shape, dtype, **out_q)
    b.op("TRANSPOSE_CONV", _with_bias([shape_t, f, x], bias_t), [y], stride=stride, padding=padding,
         activation=activation)
    return b.inputs(x).outputs(y).build()


def fully_connected_model(dtype="int8", input_shape=(1, 16), units=8, keep_num_dims=False, activation="NONE",
                          per_channel=False, bias="default", in_scale=0.05, in_zp=0, out_zp=0, out_spread=3.0,
                          quantized_bias_type=None, seed=0) -> bytes:
    """FULLY_CONNECTED: weights [units, depth]; a per-tensor bias carries scale in_s*w_s, the one TFLite
    Micro checks. `quantized_bias_type` as for conv2d_model."""
    rng = np.random.default_rng(seed)
    depth = input_shape[-1]
    rows = int(np.prod(input_shape[:-1]))
    out_shape = tuple(input_shape[:-1]) + (units,) if keep_num_dims else (rows, units)
    scales = _weight_scales(rng, units, per_channel)
    bias_kind = _default_bias(dtype, bias)
    bias_scale = None
    if dtype != "float32" and len(scales) == 1 and bias_kind is not None:  # one unit is per-tensor too
        bias_scale = float(np.float32(in_scale) * np.float32(scales[0]))
    b = TFLiteBuilder()
    x = b.tensor("input", input_shape, dtype, **_quant(dtype, in_scale, in_zp))
    f = _weights(b, rng, dtype, (units, depth), scales, 0, depth)
    bias_t = _bias(b, rng, dtype, bias_kind, units, depth, bias_scale)
    out_q = _conv_out_quant(dtype, in_scale, scales, depth, out_spread, out_zp)
    y = b.tensor("output", out_shape, dtype, **out_q)
    b.op("FULLY_CONNECTED", [x, f, bias_t], [y], activation=activation, keep_num_dims=keep_num_dims,
         quantized_bias_type=quantized_bias_type)
    return b.build()


# -- pooling ---------------------------------------------------------------------------------------------

def pool_model(op="AVERAGE_POOL_2D", dtype="int8", input_shape=(1, 8, 8, 3), filter_size=(2, 2), stride=(2, 2),
               padding="VALID", activation="NONE", scale=0.05, zero_point=0) -> bytes:
    """AVERAGE_POOL_2D / MAX_POOL_2D with equal input and output quantization (TFLite Micro requires it)."""
    n, h, w, c = input_shape
    oh = out_size(h, filter_size[0], stride[0], 1, padding)
    ow = out_size(w, filter_size[1], stride[1], 1, padding)
    q = _quant(dtype, scale, zero_point)
    b = TFLiteBuilder()
    x = b.tensor("input", input_shape, dtype, **q)
    y = b.tensor("output", (n, oh, ow, c), dtype, **q)
    b.op(op, [x], [y], filter_size=filter_size, stride=stride, padding=padding, activation=activation)
    return b.build()


# -- elementwise -----------------------------------------------------------------------------------------

def binary_model(op="ADD", dtype="int8", shape1=(1, 4, 4, 3), shape2=(1, 4, 4, 3), activation="NONE",
                 quant1=(0.05, 0), quant2=(0.05, 0), out_quant=(0.1, 0), constant_second=False, seed=0) -> bytes:
    """ADD / SUB / MUL with numpy broadcasting; the second operand may be a constant."""
    rng = np.random.default_rng(seed)
    b = TFLiteBuilder()
    x = b.tensor("x", shape1, dtype, **_quant(dtype, *quant1))
    data = None
    if constant_second:
        lo, hi = INT_LIMITS.get(dtype, (0, 0))
        data = rng.standard_normal(shape2) if dtype == "float32" else rng.integers(lo, hi + 1, shape2)
    y = b.tensor("y", shape2, dtype, data=data, **_quant(dtype, *quant2))
    z = b.tensor("z", broadcast_shape(shape1, shape2), dtype, **_quant(dtype, *out_quant))
    b.op(op, [x, y], [z], activation=activation)
    return b.build()


def unary_model(op="RELU", dtype="int8", shape=(1, 4, 4, 3), in_quant=(0.05, 0), out_quant=(0.05, 0),
                out_dtype=None, **options) -> bytes:
    """One input, one output: activations, LEAKY_RELU, SOFTMAX, QUANTIZE, DEQUANTIZE."""
    out_dtype = out_dtype or dtype
    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype, **_quant(dtype, *in_quant))
    y = b.tensor("output", shape, out_dtype, **_quant(out_dtype, *out_quant))
    b.op(op, [x], [y], **options)
    return b.build()


# -- data movement ---------------------------------------------------------------------------------------

def reshape_model(dtype="int8", in_shape=(1, 4, 4, 3), out_shape=(1, 48), style="tensor", quant=(0.05, 0)) -> bytes:
    """RESHAPE with the new shape as a constant input ("tensor"), as the option ("option"), or both."""
    q = _quant(dtype, *quant)
    b = TFLiteBuilder()
    x = b.tensor("input", in_shape, dtype, **q)
    y = b.tensor("output", out_shape, dtype, **q)
    inputs = [x]
    if style in ("tensor", "both"):
        inputs.append(b.tensor("shape", (len(out_shape),), "int32", data=out_shape))
    options = {"new_shape": list(out_shape)} if style in ("option", "both") else {}
    b.op("RESHAPE", inputs, [y], **options)
    return b.build()


def pad_model(dtype="int8", shape=(1, 4, 4, 3), paddings=((0, 0), (1, 1), (2, 0), (0, 0)), constant=None,
              quant=(0.05, 0)) -> bytes:
    """PAD, or PADV2 when a constant value is given (stored with the output's quantization)."""
    q = _quant(dtype, *quant)
    out_shape = tuple(d + lo + hi for d, (lo, hi) in zip(shape, paddings))
    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype, **q)
    p = b.tensor("paddings", (len(shape), 2), "int32", data=np.asarray(paddings))
    y = b.tensor("output", out_shape, dtype, **q)
    if constant is None:
        b.op("PAD", [x, p], [y])
    else:
        v = b.tensor("constant", (1,), dtype, data=[constant], **q)
        b.op("PADV2", [x, p, v], [y])
    return b.inputs(x).outputs(y).build()


def strided_slice_shape(shape, begin, end, strides, begin_mask=0, end_mask=0, shrink_axis_mask=0) -> tuple:
    """Output shape by Python slicing, whose clamping matches TFLite's for both stride signs; TFLite Micro
    checks the shape the model declares, so a wrong shape here fails loudly."""
    index = []
    for axis in range(len(shape)):
        if shrink_axis_mask >> axis & 1:
            index.append(begin[axis])
            continue
        start = None if begin_mask >> axis & 1 else begin[axis]
        stop = None if end_mask >> axis & 1 else end[axis]
        index.append(slice(start, stop, strides[axis]))
    return np.empty(shape, dtype=np.int8)[tuple(index)].shape


def strided_slice_model(dtype="int8", shape=(1, 6, 6, 3), begin=(0, 1, 0, 0), end=(1, 5, 6, 3),
                        strides=(1, 2, 1, 1), begin_mask=0, end_mask=0, shrink_axis_mask=0, quant=(0.05, 0)) -> bytes:
    q = _quant(dtype, *quant)
    out_shape = strided_slice_shape(shape, begin, end, strides, begin_mask, end_mask, shrink_axis_mask)
    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype, **q)
    tb = b.tensor("begin", (len(shape),), "int32", data=begin)
    te = b.tensor("end", (len(shape),), "int32", data=end)
    ts = b.tensor("strides", (len(shape),), "int32", data=strides)
    y = b.tensor("output", out_shape, dtype, **q)
    b.op("STRIDED_SLICE", [x, tb, te, ts], [y], begin_mask=begin_mask, end_mask=end_mask,
         shrink_axis_mask=shrink_axis_mask)
    return b.inputs(x).outputs(y).build()


def concat_model(dtype="int8", shapes=((1, 4, 4, 2), (1, 4, 4, 3)), axis=-1, constant=(), quant=(0.05, 0),
                 seed=0) -> bytes:
    """CONCATENATION with equal quantization everywhere; inputs listed in `constant` hold data."""
    rng = np.random.default_rng(seed)
    q = _quant(dtype, *quant)
    rank = len(shapes[0])
    out_shape = list(shapes[0])
    out_shape[axis % rank] = sum(s[axis % rank] for s in shapes)
    b = TFLiteBuilder()
    names, graph_inputs = [], []
    for i, shape in enumerate(shapes):
        data = None
        if i in constant:
            lo, hi = INT_LIMITS.get(dtype, (0, 0))
            data = rng.standard_normal(shape) if dtype == "float32" else rng.integers(lo, hi + 1, shape)
        names.append(b.tensor(f"input{i}", shape, dtype, data=data, **q))
        if data is None:
            graph_inputs.append(names[-1])
    y = b.tensor("output", out_shape, dtype, **q)
    b.op("CONCATENATION", names, [y], axis=axis)
    return b.inputs(*graph_inputs).outputs(y).build()


def mean_model(dtype="int8", shape=(1, 4, 4, 8), axes=(1, 2), keep_dims=True, in_quant=(0.05, 0),
               out_quant=(0.05, 0)) -> bytes:
    """MEAN over constant int32 axes (negative ones allowed)."""
    rank = len(shape)
    reduced = {a % rank for a in axes}
    if keep_dims:
        out_shape = tuple(1 if i in reduced else d for i, d in enumerate(shape))
    else:
        out_shape = tuple(d for i, d in enumerate(shape) if i not in reduced)
    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype, **_quant(dtype, *in_quant))
    a = b.tensor("axis", (len(axes),), "int32", data=axes)
    y = b.tensor("output", out_shape, dtype, **_quant(dtype, *out_quant))
    b.op("MEAN", [x, a], [y], keep_dims=keep_dims)
    return b.inputs(x).outputs(y).build()
