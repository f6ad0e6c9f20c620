"""One converter per TFLite builtin operator, registered by builtin code.

A converter reads the operator's options and constant inputs and returns Micro Relay nodes. TFLite's
SAME/VALID padding becomes explicit (top, left, bottom, right) pads computed as TFLite does (the odd pixel
goes to the bottom/right); constant shape-like inputs (reshape's shape, pad amounts, slice bounds) become
attributes.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import tflite
from tflite.ActivationFunctionType import ActivationFunctionType as Act
from tflite.BuiltinOperator import BuiltinOperator as B
from tflite.BuiltinOptions import BuiltinOptions
from tflite.Padding import Padding
from tflite.TensorType import TensorType

from ...errors import CompileError
from ...ir.graph import Node, Tensor

_OPTION_NAMES = {v: k for k, v in vars(BuiltinOptions).items() if not k.startswith("_")}
_ACTIVATIONS = {Act.NONE: "none", Act.RELU: "relu", Act.RELU6: "relu6", Act.RELU_N1_TO_1: "relu_n1_to_1"}


class ConvertContext:
    """What converters share: the tensors read so far and where errors point."""

    def __init__(self, tensors: dict[str, Tensor]):
        self.tensors = tensors
        self.where = ""
        self.op_index = 0

    def fail(self, what: str):
        raise CompileError(what, self.where)

    def options(self, op, cls, required: bool = False):
        """The operator's options table read as `cls`, None when absent (schema defaults) unless `required`.
        The union's type tag must name `cls`: another table's bytes read as `cls` would be garbage."""
        expected = getattr(BuiltinOptions, cls.__name__)
        kind = op.BuiltinOptionsType()
        table = op.BuiltinOptions()
        if kind == BuiltinOptions.NONE or table is None:
            if required:
                self.fail(f"operator has no {cls.__name__}")
            return None
        if kind != expected:
            self.fail(f"builtin options are {_OPTION_NAMES.get(kind, f'unknown type {kind}')}, expected {cls.__name__}")
        opts = cls()
        opts.Init(table.Bytes, table.Pos)
        return opts

    def axis(self, value: int, rank: int, what: str) -> int:
        """A TFLite axis in [-rank, rank) as a non-negative index."""
        if not -rank <= value < rank:
            self.fail(f"{what} {value} is outside [{-rank}, {rank}) for a rank-{rank} tensor")
        return value % rank

    def activation(self, code: int) -> str:
        if code not in _ACTIVATIONS:
            self.fail(f"unsupported fused activation {code}")
        return _ACTIVATIONS[code]

    def constant(self, name: str, what: str) -> np.ndarray:
        tensor = self.tensors.get(name)
        if tensor is None or not tensor.is_constant:
            self.fail(f"{what} must be a constant tensor")
        return tensor.data

    def shape(self, name: str) -> tuple[int, ...]:
        if not name:
            self.fail("a required input is absent (tensor index -1)")
        return self.tensors[name].type.shape

    def rank(self, name: str, rank: int, what: str) -> tuple[int, ...]:
        shape = self.shape(name)
        if len(shape) != rank:
            self.fail(f"{what} must be {rank}-D, got shape {list(shape)}")
        return shape

    def need_inputs(self, inputs, low: int, high: int | None = None):
        high = low if high is None else high
        present = len(inputs)
        if not low <= present <= high:
            self.fail(f"expected {low}..{high} inputs, got {present}")


CONVERTERS: dict[int, Callable] = {}


def converts(*codes: int):
    def wrap(fn):
        for code in codes:
            CONVERTERS[code] = fn
        return fn

    return wrap


def _same_or_valid(padding: int, in_size: int, kernel: int, stride: int, dilation: int, out_size: int) -> tuple[int, int]:
    """TFLite's ComputePaddingHeightWidth for one axis: (before, after)."""
    effective = (kernel - 1) * dilation + 1
    if padding == Padding.SAME:
        total = max(0, (out_size - 1) * stride + effective - in_size)
        return total // 2, total - total // 2
    return 0, max(0, (out_size - 1) * stride + effective - in_size)


def _conv_out(padding: int, in_size: int, kernel: int, stride: int) -> int:
    """TFLite's ComputeOutSize with dilation 1."""
    if padding == Padding.SAME:
        return (in_size + stride - 1) // stride
    return (in_size - kernel + stride) // stride


def _pads(ctx, padding, in_shape, out_shape, kh, kw, sh, sw, dh=1, dw=1) -> tuple[int, int, int, int]:
    if padding not in (Padding.SAME, Padding.VALID):
        ctx.fail(f"unknown padding type {padding}")
    for what, values in (("filter size", (kh, kw)), ("strides", (sh, sw)), ("dilation", (dh, dw))):
        if min(values) < 1:
            ctx.fail(f"{what} {list(values)} must be positive")
    # The padding is derived from the output size, so a hostile output tensor would ask for any padding at
    # all (millions of rows): it must be the size TFLite's ComputeOutSize gives, as converters write it.
    for axis, kernel, stride, dilation in ((1, kh, sh, dh), (2, kw, sw, dw)):
        effective = (kernel - 1) * dilation + 1
        expected = (in_shape[axis] + stride - (1 if padding == Padding.SAME else effective)) // stride
        if out_shape[axis] != expected:
            ctx.fail(f"output {'height' if axis == 1 else 'width'} {out_shape[axis]} is not the {expected} that "
                     f"{'SAME' if padding == Padding.SAME else 'VALID'} padding gives")
    top, bottom = _same_or_valid(padding, in_shape[1], kh, sh, dh, out_shape[1])
    left, right = _same_or_valid(padding, in_shape[2], kw, sw, dw, out_shape[2])
    return (top, left, bottom, right)


def _node(ctx, op_name, inputs, outputs, **attrs) -> Node:
    return Node(op_name, tuple(inputs), tuple(outputs), attrs, name=f"{ctx.op_index}")


@converts(B.CONV_2D)
def conv2d(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2, 3)
    o = ctx.options(op, tflite.Conv2DOptions, required=True)
    data, weight = ctx.rank(inputs[0], 4, "CONV_2D input"), ctx.rank(inputs[1], 4, "CONV_2D filter")
    ctx.rank(outputs[0], 4, "CONV_2D output")
    strides, dilation = (o.StrideH(), o.StrideW()), (o.DilationHFactor(), o.DilationWFactor())
    pads = _pads(ctx, o.Padding(), data, ctx.shape(outputs[0]), weight[1], weight[2], *strides, *dilation)
    bias = inputs[2] if len(inputs) > 2 else ""
    extra = {"quantized_bias_type": _bias_type(o)} if _bias_type(o) != "default" else {}
    return [_node(ctx, "nn.conv2d", [inputs[0], inputs[1], bias], outputs, strides=strides, dilation=dilation,
                  padding=pads, activation=ctx.activation(o.FusedActivationFunction()), **extra)]


@converts(B.DEPTHWISE_CONV_2D)
def depthwise_conv2d(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2, 3)
    o = ctx.options(op, tflite.DepthwiseConv2DOptions, required=True)
    data = ctx.rank(inputs[0], 4, "DEPTHWISE_CONV_2D input")
    weight = ctx.rank(inputs[1], 4, "DEPTHWISE_CONV_2D filter")
    ctx.rank(outputs[0], 4, "DEPTHWISE_CONV_2D output")
    strides, dilation = (o.StrideH(), o.StrideW()), (o.DilationHFactor(), o.DilationWFactor())
    pads = _pads(ctx, o.Padding(), data, ctx.shape(outputs[0]), weight[1], weight[2], *strides, *dilation)
    bias = inputs[2] if len(inputs) > 2 else ""
    multiplier = o.DepthMultiplier() or (weight[3] // data[3] if data[3] else 0)
    return [_node(ctx, "nn.depthwise_conv2d", [inputs[0], inputs[1], bias], outputs, strides=strides,
                  dilation=dilation, padding=pads, depth_multiplier=int(multiplier),
                  activation=ctx.activation(o.FusedActivationFunction()))]


@converts(B.TRANSPOSE_CONV)
def transpose_conv(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 3, 4)
    o = ctx.options(op, tflite.TransposeConvOptions, required=True)
    ctx.rank(outputs[0], 4, "TRANSPOSE_CONV output")
    ctx.rank(inputs[2], 4, "TRANSPOSE_CONV input")
    # TFLite Micro takes the output size from the output tensor, not from the output-shape input, which
    # may even be a runtime graph input (then it is left unread). A constant one must agree.
    out_shape = tuple(ctx.shape(outputs[0]))
    shape_input = ctx.tensors.get(inputs[0])
    if shape_input is not None and shape_input.is_constant and tuple(map(int, shape_input.data.ravel())) != out_shape:
        ctx.fail(f"output shape input {shape_input.data.tolist()} differs from the output tensor {list(out_shape)}")
    weight = ctx.rank(inputs[1], 4, "TRANSPOSE_CONV filter")
    strides = (o.StrideH(), o.StrideW())
    if min(strides) < 1:
        ctx.fail(f"strides {list(strides)} must be positive")
    # TFLite computes transpose-conv padding with the output as the "input" of a forward conv.
    top, bottom = _same_or_valid(o.Padding(), out_shape[1], weight[1], strides[0], 1,
                                 _conv_out(o.Padding(), out_shape[1], weight[1], strides[0]))
    left, right = _same_or_valid(o.Padding(), out_shape[2], weight[2], strides[1], 1,
                                 _conv_out(o.Padding(), out_shape[2], weight[2], strides[1]))
    activation = ctx.activation(o.FusedActivationFunction()) if o is not None else "none"
    bias = inputs[3] if len(inputs) > 3 else ""
    return [_node(ctx, "nn.conv2d_transpose", [inputs[2], inputs[1], bias], outputs, strides=strides,
                  padding=(top, left, bottom, right), output_shape=out_shape, activation=activation)]


@converts(B.FULLY_CONNECTED)
def fully_connected(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2, 3)
    o = ctx.options(op, tflite.FullyConnectedOptions)
    if o is not None and o.WeightsFormat() != 0:
        ctx.fail("shuffled FULLY_CONNECTED weights are not supported")
    bias = inputs[2] if len(inputs) > 2 else ""
    activation = ctx.activation(o.FusedActivationFunction()) if o is not None else "none"
    out_shape = ctx.shape(outputs[0])
    extra = {"quantized_bias_type": _bias_type(o)} if o is not None and _bias_type(o) != "default" else {}
    return [_node(ctx, "nn.dense", [inputs[0], inputs[1], bias], outputs, activation=activation,
                  output_shape=tuple(out_shape), **extra)]


def _bias_type(options) -> str:
    """quantized_bias_type: for bias-less int16x8 layers it picks the int32 or int64 accumulator."""
    return {TensorType.INT32: "int32", TensorType.INT64: "int64"}.get(options.QuantizedBiasType(), "default")


def _pool(op_name):
    def convert(ctx, op, inputs, outputs):
        ctx.need_inputs(inputs, 1)
        o = ctx.options(op, tflite.Pool2DOptions, required=True)
        data = ctx.rank(inputs[0], 4, "pooling input")
        ctx.rank(outputs[0], 4, "pooling output")
        size, strides = (o.FilterHeight(), o.FilterWidth()), (o.StrideH(), o.StrideW())
        pads = _pads(ctx, o.Padding(), data, ctx.shape(outputs[0]), *size, *strides)
        return [_node(ctx, op_name, inputs, outputs, pool_size=size, strides=strides, padding=pads,
                      activation=ctx.activation(o.FusedActivationFunction()))]

    return convert


converts(B.AVERAGE_POOL_2D)(_pool("nn.avg_pool2d"))
converts(B.MAX_POOL_2D)(_pool("nn.max_pool2d"))


def _binary(op_name, options_cls):
    def convert(ctx, op, inputs, outputs):
        ctx.need_inputs(inputs, 2)
        o = ctx.options(op, options_cls)
        activation = ctx.activation(o.FusedActivationFunction()) if o is not None else "none"
        return [_node(ctx, op_name, inputs, outputs, activation=activation)]

    return convert


converts(B.ADD)(_binary("add", tflite.AddOptions))
converts(B.SUB)(_binary("subtract", tflite.SubOptions))
converts(B.MUL)(_binary("multiply", tflite.MulOptions))


@converts(B.RESHAPE, B.SQUEEZE, B.EXPAND_DIMS)
def reshape(ctx, op, inputs, outputs):
    return [_node(ctx, "reshape", inputs[:1], outputs, newshape=tuple(ctx.shape(outputs[0])))]


@converts(B.SOFTMAX)
def softmax(ctx, op, inputs, outputs):
    o = ctx.options(op, tflite.SoftmaxOptions)
    return [_node(ctx, "nn.softmax", inputs[:1], outputs, beta=float(o.Beta()) if o is not None else 1.0)]


@converts(B.QUANTIZE)
def quantize(ctx, op, inputs, outputs):
    return [_node(ctx, "qnn.quantize", inputs[:1], outputs)]


@converts(B.DEQUANTIZE)
def dequantize(ctx, op, inputs, outputs):
    return [_node(ctx, "qnn.dequantize", inputs[:1], outputs)]


@converts(B.PAD, B.PADV2)
def pad(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2, 3)
    paddings = ctx.constant(inputs[1], "PAD paddings").astype(np.int64)
    rank = len(ctx.shape(inputs[0]))
    if paddings.shape != (rank, 2) or (paddings < 0).any():
        ctx.fail(f"PAD paddings must be non-negative with shape [{rank}, 2], got {paddings.tolist()}")
    attrs = {"pad_width": tuple(int(v) for v in paddings.ravel())}
    if len(inputs) > 2 and inputs[2]:
        value = ctx.constant(inputs[2], "PADV2 constant value").ravel()
        if value.size != 1:
            ctx.fail(f"PADV2 constant value holds {value.size} values, not 1")
        if value.dtype == np.int8:  # TFLite Micro's PadPrepare: the raw constant must share the output's quantization
            cq, oq = ctx.tensors[inputs[2]].type.quant, ctx.tensors[outputs[0]].type.quant
            cq, oq = ((q.scale, q.zero_point) if q is not None else (0.0, 0) for q in (cq, oq))
            if (float(np.float32(cq[0])), cq[1]) != (float(np.float32(oq[0])), oq[1]):
                ctx.fail(f"PADV2 int8 constant is quantized {cq}, the output {oq}; they must be equal")
        attrs["pad_value"] = float(value[0]) if value.dtype.kind == "f" else int(value[0])
    return [_node(ctx, "nn.pad", inputs[:1], outputs, **attrs)]


@converts(B.STRIDED_SLICE)
def strided_slice(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 4)
    o = ctx.options(op, tflite.StridedSliceOptions)
    shape = ctx.shape(inputs[0])
    if len(shape) > 5:
        ctx.fail("STRIDED_SLICE supports at most 5 dimensions")
    begin = [int(v) for v in ctx.constant(inputs[1], "STRIDED_SLICE begin").ravel()]
    end = [int(v) for v in ctx.constant(inputs[2], "STRIDED_SLICE end").ravel()]
    strides = [int(v) for v in ctx.constant(inputs[3], "STRIDED_SLICE strides").ravel()]
    if o is not None and (o.EllipsisMask() or o.NewAxisMask()):
        # TFLite Micro forces these masks to 0; follow it.
        pass
    begin_mask = o.BeginMask() if o is not None else 0
    end_mask = o.EndMask() if o is not None else 0
    shrink_mask = o.ShrinkAxisMask() if o is not None else 0
    starts, stops, steps = [], [], []
    for axis, dim in enumerate(shape):
        b = begin[axis] if axis < len(begin) else 0
        e = end[axis] if axis < len(end) else dim
        s = strides[axis] if axis < len(strides) else 1
        if s == 0:
            ctx.fail(f"STRIDED_SLICE stride 0 on axis {axis}")
        start = _slice_index(b, dim, s, bool(begin_mask >> axis & 1), True)
        if shrink_mask >> axis & 1:
            stop = start + 1
        else:
            stop = _slice_index(e, dim, s, bool(end_mask >> axis & 1), False)
        starts.append(start)
        stops.append(stop)
        steps.append(s)
    return [_node(ctx, "strided_slice", inputs[:1], outputs, begin=tuple(starts), end=tuple(stops),
                  strides=tuple(steps), newshape=tuple(ctx.shape(outputs[0])))]


def _slice_index(index: int, dim: int, stride: int, masked: bool, is_begin: bool) -> int:
    """TFLite's StartForAxis/StopForAxis: masked -> the far end, negative wraps, then clamp."""
    if masked:
        if is_begin:
            return 0 if stride > 0 else dim - 1
        return dim if stride > 0 else -1
    if index < 0:
        index += dim
    if stride > 0:
        return min(max(index, 0), dim)
    return min(max(index, -1), dim - 1)


@converts(B.LEAKY_RELU)
def leaky_relu(ctx, op, inputs, outputs):
    o = ctx.options(op, tflite.LeakyReluOptions)
    return [_node(ctx, "nn.leaky_relu", inputs[:1], outputs, alpha=float(o.Alpha()) if o is not None else 0.2)]


@converts(B.CONCATENATION)
def concatenation(ctx, op, inputs, outputs):
    o = ctx.options(op, tflite.ConcatenationOptions)
    rank = len(ctx.shape(outputs[0]))
    axis = ctx.axis(o.Axis() if o is not None else 0, rank, "CONCATENATION axis")
    if o is not None and o.FusedActivationFunction() != Act.NONE:
        ctx.fail("CONCATENATION with a fused activation is not supported")
    return [_node(ctx, "concatenate", inputs, outputs, axis=axis)]


@converts(B.MEAN)
def mean(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    o = ctx.options(op, tflite.ReducerOptions)
    rank = len(ctx.shape(inputs[0]))
    axes = sorted({ctx.axis(int(a), rank, "MEAN axis") for a in np.ravel(ctx.constant(inputs[1], "MEAN axis"))})
    return [_node(ctx, "mean", inputs[:1], outputs, axis=tuple(axes), keepdims=bool(o.KeepDims()) if o is not None else False)]


def _unary(op_name):
    def convert(ctx, op, inputs, outputs):
        return [_node(ctx, op_name, inputs[:1], outputs)]

    return convert


converts(B.LOGISTIC)(_unary("sigmoid"))
converts(B.TANH)(_unary("tanh"))
converts(B.RELU)(_unary("nn.relu"))
converts(B.RELU6)(_unary("nn.relu6"))
