"""Dilated-convolution folding: batch_to_space_nd(conv(space_to_batch_nd(x))) -> one dilated conv(x).

TensorFlow writes an atrous convolution with dilation (bh, bw) as: pad x by `paddings` and split it into
the bh x bw phases of the padded image (space_to_batch_nd), run a VALID stride-1 convolution on each phase,
interleave the phases back and crop (batch_to_space_nd). Output row r of the chain reads padded rows
r + crop_top + fy * bh, which is what one convolution with dilation bh reads with top padding
pad_top - crop_top (likewise bottom, left, right). Both pad with real zero (the zero point: the space/batch
ops pad with it, the convolution skips padding taps), so integer outputs are the same bit for bit, with
two copies of the feature map and their arena bytes gone.
Applies to nn.conv2d and nn.depthwise_conv2d with strides 1, dilation 1 and no padding of their own, equal
blocks, crops no larger than the paddings, and intermediates with one reader that are not graph outputs.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir.graph import Graph

CONVS = ("nn.conv2d", "nn.depthwise_conv2d")


def _single_reader(graph, readers, name) -> bool:
    return len(readers.get(name, ())) == 1 and name not in graph.outputs


def fold_dilated_conv(graph: Graph) -> Graph:
    readers, producer = graph.consumers(), graph.producers()
    nodes = list(graph.nodes)
    for index, b2s in enumerate(graph.nodes):
        if b2s.op != "nn.batch_to_space_nd" or producer.get(b2s.inputs[0]) is None:
            continue
        c_index = producer[b2s.inputs[0]]
        conv = graph.nodes[c_index]
        if conv.op not in CONVS or producer.get(conv.inputs[0]) is None:
            continue
        s_index = producer[conv.inputs[0]]
        s2b = graph.nodes[s_index]
        block = tuple(int(b) for b in s2b.attrs.get("block_shape", ()))
        if s2b.op != "nn.space_to_batch_nd" or len(block) != 2 or block != tuple(b2s.attrs["block_shape"]):
            continue
        if (tuple(conv.attrs.get("strides", (1, 1))) != (1, 1) or tuple(conv.attrs.get("dilation", (1, 1))) != (1, 1)
                or any(conv.attrs.get("padding", (0, 0, 0, 0)))):
            continue
        if not (_single_reader(graph, readers, s2b.outputs[0]) and _single_reader(graph, readers, conv.outputs[0])):
            continue
        if graph.type_of(conv.outputs[0]).quant != graph.type_of(b2s.outputs[0]).quant:
            continue
        (pt, pb, pl, pr), (ct, cb, cl, cr) = (tuple(int(v) for v in n.attrs[k]) for n, k in
                                              ((s2b, "paddings"), (b2s, "crops")))
        padding = (pt - ct, pl - cl, pb - cb, pr - cr)
        if min(padding) < 0:
            continue
        nodes[s_index] = None
        nodes[c_index] = None
        nodes[index] = replace(conv.with_attrs(dilation=block, padding=padding),
                               inputs=(s2b.inputs[0], *conv.inputs[1:]), outputs=b2s.outputs)
    return graph.with_nodes([n for n in nodes if n is not None], graph.tensors)
