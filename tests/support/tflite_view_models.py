"""Small int8 TFLite networks whose CONCATENATION, SPLIT and STRIDED_SLICE the memory plan can turn into views
(plan/buffers.py steps 2 and 3'): each branch is a convolution, so the concatenated or split tensors are real
arena tensors rather than graph inputs. Written with Micro Relay's own TFLite writer; TFLite Micro, which
copies, is the oracle."""

from __future__ import annotations

from .tflite_padded_models import _Net


def _concat(net: _Net, parts, axis: int, name: str):
    b = net.b
    shapes = [b_shape for _, b_shape in parts]
    out_shape = list(shapes[0])
    out_shape[axis] = sum(s[axis] for s in shapes)
    y = b.tensor(name, tuple(out_shape), "int8", scale=net.scale, zero_point=net.zp)
    b.op("CONCATENATION", [t for t, _ in parts], [y], axis=axis)
    net.x, net.shape = y, tuple(out_shape)


def concat_rows_model(size=8, channels=4, seed=0) -> bytes:
    """stem conv 3x3 -> two 3x3 convolutions of it -> CONCATENATION on the height (the outermost axis that is
    not 1) -> 1x1 conv. The branches share one output quantization, as TFLite Micro requires."""
    net = _Net((1, size, size, 3), seed)
    stem = net.conv(channels, kernel=3)
    stem_shape, stem_q = net.shape, (net.scale, net.zp)
    parts = []
    for _ in range(2):
        net.x, net.shape, (net.scale, net.zp) = stem, stem_shape, stem_q
        parts.append((net.conv(channels, kernel=3), net.shape))
    _concat(net, parts, 1, "joined")
    net.conv(4, activation="NONE")
    return net.b.inputs(net.input).outputs(net.x).build()


def split_rows_model(size=8, channels=8, parts=2, seed=0) -> bytes:
    """stem conv 3x3 -> SPLIT on the height into `parts` -> a 3x3 conv of each -> CONCATENATION on the height."""
    net = _Net((1, size, size, 3), seed)
    stem = net.conv(channels, kernel=3)
    n, h, w, c = net.shape
    piece = (n, h // parts, w, c)
    axis = net.b.tensor("split_axis", (1,), "int32", data=[1])
    pieces = [net.b.tensor(f"piece{i}", piece, "int8", scale=net.scale, zero_point=net.zp) for i in range(parts)]
    net.b.op("SPLIT", [axis, stem], pieces, num_splits=parts)
    q = (net.scale, net.zp)
    outs = []
    for t in pieces:
        net.x, net.shape, (net.scale, net.zp) = t, piece, q
        outs.append((net.conv(channels, kernel=3), net.shape))
    _concat(net, outs, 1, "joined")
    return net.b.inputs(net.input).outputs(net.x).build()


def slice_model(size=8, channels=4, begin=(0, 2, 0, 0), end=(1, 6, 8, 4), seed=0) -> bytes:
    """stem conv 3x3 -> STRIDED_SLICE(begin, end, strides 1) -> 3x3 conv."""
    net = _Net((1, size, size, 3), seed)
    stem = net.conv(channels, kernel=3)
    shape = tuple(e - b for b, e in zip(begin, end))
    b = net.b
    tensors = [b.tensor(f"slice_{k}", (4,), "int32", data=list(v)) for k, v in
               (("begin", begin), ("end", end), ("strides", (1, 1, 1, 1)))]
    y = b.tensor("sliced", shape, "int8", scale=net.scale, zero_point=net.zp)
    b.op("STRIDED_SLICE", [stem, *tensors], [y])
    net.x, net.shape = y, shape
    net.conv(4, kernel=3, activation="NONE")
    return b.inputs(net.input).outputs(net.x).build()

