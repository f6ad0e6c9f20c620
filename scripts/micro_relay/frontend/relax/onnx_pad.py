"""Zero padding folded into the convolution that reads it, on the ONNX graph, before apache-tvm imports it.

PyTorch's F.pad before a Conv (asymmetric or "same" padding done by hand) exports as Pad -> Conv, and the
Relax importer turns a Pad into an opaque TIR function. A constant-mode Pad of value 0 with constant,
non-negative pads on the spatial axes only, whose output is read only by Conv nodes (auto_pad NOTSET) and is
not a graph output, is the same as adding its pads to each Conv's `pads` attribute: the convolution already
reads zeros outside the image. Other Pads are left as they are.
"""

from __future__ import annotations

import numpy as np


def _constant(model, name: str):
    from onnx import numpy_helper

    for init in model.graph.initializer:
        if init.name == name:
            return numpy_helper.to_array(init)
    return None


def _pad_amounts(model, node) -> list[int] | None:
    """[x1_begin, x2_begin, ..., x1_end, x2_end, ...] of a foldable zero Pad, else None."""
    mode = next((a.s.decode("utf-8", "replace") for a in node.attribute if a.name == "mode"), "constant")
    if mode != "constant" or len(node.input) < 2:
        return None
    pads = _constant(model, node.input[1])
    if pads is None:
        return None
    if len(node.input) > 2 and node.input[2]:
        value = _constant(model, node.input[2])
        if value is None or np.any(value != 0):
            return None
    if len(node.input) > 3 and node.input[3]:  # explicit axes: not handled
        return None
    pads = [int(p) for p in pads.reshape(-1)]
    rank = len(pads) // 2
    if rank < 3 or any(p < 0 for p in pads) or any(pads[i] or pads[i + rank] for i in (0, 1)):
        return None  # batch and channel axes must not be padded
    return pads


def fold_pad_into_conv(model):
    """A copy of the model with foldable zero Pads merged into their Conv readers."""
    import onnx
    from onnx import helper

    readers: dict[str, list] = {}
    for node in model.graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    outputs = {o.name for o in model.graph.output}
    merges = {}
    for node in model.graph.node:
        if node.op_type != "Pad" or node.output[0] in outputs:
            continue
        pads = _pad_amounts(model, node)
        users = readers.get(node.output[0], [])
        if pads is None or not users or any(u.op_type != "Conv" or u.input[0] != node.output[0] for u in users):
            continue
        if any(a.name == "auto_pad" and a.s not in (b"", b"NOTSET") for u in users for a in u.attribute):
            continue
        merges[node.output[0]] = (node, pads)
    if not merges:
        return model
    result = onnx.ModelProto()
    result.CopyFrom(model)
    del result.graph.node[:]
    for node in model.graph.node:
        if node.op_type == "Pad" and node.output[0] in merges:
            continue
        if node.op_type == "Conv" and node.input[0] in merges:
            pad_node, pads = merges[node.input[0]]
            rank = len(pads) // 2
            spatial = rank - 2
            before, after = pads[2:rank], pads[rank + 2:]
            old = next((list(a.ints) for a in node.attribute if a.name == "pads"), [0] * (2 * spatial))
            new_pads = [old[i] + before[i] for i in range(spatial)] + [old[spatial + i] + after[i] for i in range(spatial)]
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute if a.name not in ("pads", "auto_pad")}
            node = helper.make_node("Conv", [pad_node.input[0], *node.input[1:]], list(node.output), name=node.name,
                                    pads=new_pads, **attrs)
        result.graph.node.append(node)
    return result
