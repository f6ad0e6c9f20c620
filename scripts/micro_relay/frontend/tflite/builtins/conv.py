"""CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV and FULLY_CONNECTED."""

from __future__ import annotations

import tflite
from tflite.BuiltinOperator import BuiltinOperator as B
from tflite.TensorType import TensorType

from .context import converts, make_node
from .padding import conv_out_size, explicit_pads, same_or_valid


@converts(B.CONV_2D)
def conv2d(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2, 3)
    o = ctx.options(op, tflite.Conv2DOptions, required=True)
    data, weight = ctx.rank(inputs[0], 4, "CONV_2D input"), ctx.rank(inputs[1], 4, "CONV_2D filter")
    ctx.rank(outputs[0], 4, "CONV_2D output")
    strides, dilation = (o.StrideH(), o.StrideW()), (o.DilationHFactor(), o.DilationWFactor())
    pads = explicit_pads(ctx, o.Padding(), data, ctx.shape(outputs[0]), weight[1], weight[2], *strides, *dilation)
    bias = inputs[2] if len(inputs) > 2 else ""
    extra = {"quantized_bias_type": _bias_type(o)} if _bias_type(o) != "default" else {}
    return [make_node(ctx, "nn.conv2d", [inputs[0], inputs[1], bias], outputs, strides=strides, dilation=dilation,
                  padding=pads, activation=ctx.activation(o.FusedActivationFunction()), **extra)]


@converts(B.DEPTHWISE_CONV_2D)
def depthwise_conv2d(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2, 3)
    o = ctx.options(op, tflite.DepthwiseConv2DOptions, required=True)
    data = ctx.rank(inputs[0], 4, "DEPTHWISE_CONV_2D input")
    weight = ctx.rank(inputs[1], 4, "DEPTHWISE_CONV_2D filter")
    ctx.rank(outputs[0], 4, "DEPTHWISE_CONV_2D output")
    strides, dilation = (o.StrideH(), o.StrideW()), (o.DilationHFactor(), o.DilationWFactor())
    pads = explicit_pads(ctx, o.Padding(), data, ctx.shape(outputs[0]), weight[1], weight[2], *strides, *dilation)
    bias = inputs[2] if len(inputs) > 2 else ""
    multiplier = o.DepthMultiplier() or (weight[3] // data[3] if data[3] else 0)
    return [make_node(ctx, "nn.depthwise_conv2d", [inputs[0], inputs[1], bias], outputs, strides=strides,
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
    top, bottom = same_or_valid(o.Padding(), out_shape[1], weight[1], strides[0], 1,
                                 conv_out_size(o.Padding(), out_shape[1], weight[1], strides[0]))
    left, right = same_or_valid(o.Padding(), out_shape[2], weight[2], strides[1], 1,
                                 conv_out_size(o.Padding(), out_shape[2], weight[2], strides[1]))
    activation = ctx.activation(o.FusedActivationFunction()) if o is not None else "none"
    bias = inputs[3] if len(inputs) > 3 else ""
    return [make_node(ctx, "nn.conv2d_transpose", [inputs[2], inputs[1], bias], outputs, strides=strides,
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
    return [make_node(ctx, "nn.dense", [inputs[0], inputs[1], bias], outputs, activation=activation,
                  output_shape=tuple(out_shape), **extra)]


def _bias_type(options) -> str:
    """quantized_bias_type: for bias-less int16x8 layers it picks the int32 or int64 accumulator."""
    return {TensorType.INT32: "int32", TensorType.INT64: "int64"}.get(options.QuantizedBiasType(), "default")
