"""QUANTIZE and DEQUANTIZE."""

from __future__ import annotations

from tflite.BuiltinOperator import BuiltinOperator as B

from .context import converts, make_node


@converts(B.QUANTIZE)
def quantize(ctx, op, inputs, outputs):
    return [make_node(ctx, "qnn.quantize", inputs[:1], outputs)]


@converts(B.DEQUANTIZE)
def dequantize(ctx, op, inputs, outputs):
    return [make_node(ctx, "qnn.dequantize", inputs[:1], outputs)]
