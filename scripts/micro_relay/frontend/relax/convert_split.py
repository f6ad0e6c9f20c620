"""split (ONNX Split, torch.split / chunk): one strided_slice per part, in the layout the value has.

A channels-last value is cut along the stored position of the model's axis, so a channel split (a GLU, a
ShuffleNet block) costs no transpose. Parts are returned as a list; tuple indexing in lower.py takes them apart.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from ...ir.types import TensorType
from .context import QConst, Value, channels_last
from .converters import converts


def _bounds(ctx, sections, length: int) -> list[tuple[int, int]]:
    """(begin, end) of each part from Relax's indices_or_sections: a part count or the split indices."""
    if isinstance(sections, (int, np.integer)) or type(sections).__name__ == "IntImm":
        count = int(sections)
        if count < 1 or length % count:
            ctx.fail(f"cannot split an axis of {length} into {count} equal parts")
        step = length // count
        return [(i * step, (i + 1) * step) for i in range(count)]
    cuts = [0] + [min(max(int(i), 0), length) for i in sections] + [length]
    if any(a > b for a, b in pairwise(cuts)):
        ctx.fail(f"split indices {[int(i) for i in sections]} are not increasing")
    return list(pairwise(cuts))


@converts("split")
def split(ctx, attrs, args, out, hint):
    x = args[0]
    if isinstance(x, (np.ndarray, QConst)):
        ctx.fail("split of a constant was not folded")
    t = ctx.type_of(x.name)
    rank = t.rank
    axis = int(attrs.axis) % rank
    stored = channels_last(rank).index(axis) if x.nhwc else axis
    parts = []
    for i, (begin, end) in enumerate(_bounds(ctx, attrs.indices_or_sections, t.shape[stored])):
        shape = list(t.shape)
        shape[stored] = end - begin
        if end == begin:
            ctx.fail(f"split part {i} is empty")
        starts, stops = [0] * rank, list(t.shape)
        starts[stored], stops[stored] = begin, end
        name = ctx.node("strided_slice", [x.name], TensorType(tuple(shape), t.dtype, t.quant), f"{hint}_{i}",
                        begin=tuple(starts), end=tuple(stops), strides=(1,) * rank, newshape=tuple(shape))
        parts.append(Value(name, x.nhwc))
    return parts
