"""Padding folding: nn.pad -> conv2d / depthwise_conv2d / max_pool2d becomes one node with more padding.

An explicit PAD writes a padded copy of its input, and the copy and its input are live together: in a
MobileNetV2 the largest step of the whole plan is such a PAD (112x112x96 and its 114x114x96 copy). The
consumers' own kernels already walk windows that leave the image (the taps outside are skipped), so when the
PAD's border is what a skipped tap means, its padding moves into the consumer and the copy disappears:

- conv2d, depthwise_conv2d: a skipped tap adds nothing; a PAD tap adds (zp - zp) * w = 0 in integers (the
  border is the input zero point) and 0.0 * w in float (a border of +0.0). Equal bit for bit, including
  windows wholly in the border (pad > k - 1), which hold the bias alone either way.
- max_pool2d: a skipped tap never wins; a PAD tap cannot win when the border is at most the value the kernel
  starts from (the type's lowest: -128 for int8, -FLT_MAX for float), provided every window still holds an
  image pixel (the pool refuses windows wholly in the padding). Any other border could win: not folded.
- avg_pool2d is never folded: TFLite Micro divides by the count of in-image taps, which after the fold would
  leave the PAD's border taps out of both the sum and the count.

Only a 4-D NHWC PAD whose batch and channel axes are not padded, that keeps its input's type and
quantization (it copies raw bytes), and whose output has this one reader and is not a graph output, folds.
1x1 convolutions are left alone: unpadded, they run as a matrix product (ops/_conv_common.py is_pointwise,
CMSIS-NN's 1x1 paths), which padding would turn into a window walk. An int8 3x3 depthwise layer keeps its
padding within one pixel at the top and the left, where CMSIS-NN's arm_depthwise_conv_3x3_s8 applies (its
adapter takes arm_depthwise_conv_s8_opt, with scratch, beyond); TensorFlow's stride-2 PAD (0, 1) and
PyTorch's padding 1 stay within it. Every other padding is one the portable and Arm DSP kernels take as they
are (windows clipped to the image, kernels/overlap.py included), so no other kernel choice changes.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import CompileError
from ..ir.graph import Graph
from ..ir.registry import get_op
from ..ir.types import DType

CONVS = ("nn.conv2d", "nn.depthwise_conv2d")
FOLDABLE = (*CONVS, "nn.max_pool2d")


def _spatial_padding(pad_node) -> tuple[int, int, int, int] | None:
    """(top, left, bottom, right) of an NHWC PAD that pads height and width only, else None."""
    flat = [int(v) for v in pad_node.attrs["pad_width"]]
    if len(flat) != 8 or flat[0] or flat[1] or flat[6] or flat[7]:
        return None
    return flat[2], flat[4], flat[3], flat[5]


def _border_value(graph, pad_node):
    """The value the PAD writes, in its output's type (the op's own rule), or None if it is invalid."""
    try:
        return get_op("nn.pad").prepare(graph, pad_node)["value"]
    except CompileError:
        return None  # lowering reports it


def _border_is_skipped_tap(graph, consumer, value) -> bool:
    """Whether a border tap computes what a skipped tap computes, for this consumer (module docstring)."""
    data = graph.type_of(consumer.inputs[0])
    if consumer.op in CONVS:
        if data.dtype.is_float:
            return value == 0.0 and not np.signbit(value)
        zero_point = data.quant.zero_point if data.quant is not None else 0
        return value == zero_point
    lowest = -float(np.finfo(np.float32).max) if data.dtype.is_float else data.dtype.min
    return value <= lowest


def _window_hw(graph, consumer) -> tuple[int, int]:
    """(k_h, k_w): a pool's window, or a convolution's filter (OHWI for conv2d, 1HWC for depthwise)."""
    if consumer.op == "nn.max_pool2d":
        return tuple(int(k) for k in consumer.attrs["pool_size"])
    shape = graph.type_of(consumer.inputs[1]).shape
    return int(shape[1]), int(shape[2])


def _keeps_kernel_path(graph, consumer, padding) -> bool:
    """Whether the folded padding keeps the kernels this convolution runs on today (module docstring)."""
    k_hw = _window_hw(graph, consumer)
    if k_hw == (1, 1):
        return False
    int8 = graph.type_of(consumer.inputs[0]).dtype == DType.INT8
    if consumer.op == "nn.depthwise_conv2d" and k_hw == (3, 3) and int8:
        top, left = (int(v) for v in consumer.attrs.get("padding", (0, 0, 0, 0))[:2])
        if top <= 1 and left <= 1 and (padding[0] > 1 or padding[1] > 1):
            return False
    return True


def _every_window_reads_the_image(graph, pool, image, padding) -> bool:
    """The pool's own check on the folded node (ops/_pooling.py pool_prepare): no window wholly in the padding."""
    _, h, w, _ = graph.type_of(image).shape
    _, out_h, out_w, _ = graph.type_of(pool.outputs[0]).shape
    (k_h, k_w), (s_h, s_w) = _window_hw(graph, pool), pool.attrs.get("strides", (1, 1))
    for size, outs, k, stride, before in ((h, out_h, k_h, s_h, padding[0]), (w, out_w, k_w, s_w, padding[1])):
        if k - before <= 0 or (outs - 1) * stride - before >= size:
            return False
    return True


def fold_padding(graph: Graph) -> Graph:
    readers, producer = graph.consumers(), graph.producers()
    nodes = list(graph.nodes)
    for index, consumer in enumerate(graph.nodes):
        if consumer.op not in FOLDABLE or producer.get(consumer.inputs[0]) is None:
            continue
        p_index = producer[consumer.inputs[0]]
        pad = graph.nodes[p_index]
        if pad.op != "nn.pad" or nodes[p_index] is None:
            continue
        padded = pad.outputs[0]
        if len(readers.get(padded, ())) != 1 or padded in graph.outputs:
            continue
        source, target = graph.type_of(pad.inputs[0]), graph.type_of(padded)
        if source.dtype != target.dtype or source.quant != target.quant:
            continue
        extra = _spatial_padding(pad)
        value = _border_value(graph, pad)
        if extra is None or value is None or not _border_is_skipped_tap(graph, consumer, value):
            continue
        own = tuple(int(v) for v in consumer.attrs.get("padding", (0, 0, 0, 0)))
        padding = tuple(a + b for a, b in zip(own, extra))
        if consumer.op in CONVS and not _keeps_kernel_path(graph, consumer, padding):
            continue
        if consumer.op == "nn.max_pool2d" and not _every_window_reads_the_image(graph, consumer, pad.inputs[0],
                                                                                 padding):
            continue
        nodes[p_index] = None
        nodes[index] = replace(consumer.with_attrs(padding=padding), inputs=(pad.inputs[0], *consumer.inputs[1:]))
    return graph.with_nodes([n for n in nodes if n is not None], graph.tensors)
