"""The geometry shared by nn.space_to_batch_nd and nn.batch_to_space_nd (TFLite SPACE_TO_BATCH_ND /
BATCH_TO_SPACE_ND, NHWC or the 3-D [n, w, c] form, which runs as [n, w, 1, c]).

space_to_batch pads the image by `paddings` (real zero: the zero point of quantized tensors, as TensorFlow
Lite pads; TFLite Micro leaves the padding value uninitialized) and moves each of the block_h x block_w
phases into its own batch; batch_to_space is the inverse followed by a crop. Batch k holds phase
(k // n) of image k % n, phase p = py * block_w + px: TensorFlow's order, which dilated convolutions rely on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ir.types import INT32_MAX
from ._common import fail, out_type, types
from ._movement import raw_copy


@dataclass(frozen=True)
class SpaceBatch:
    batches: int  # image side
    image_h: int
    image_w: int
    channels: int
    block: tuple[int, int]
    before: tuple[int, int]  # padding (space_to_batch) or crop (batch_to_space) ahead of each spatial axis
    after: tuple[int, int]
    spatial: int  # 1 or 2 spatial axes in the model's tensors

    @property
    def grid(self) -> tuple[int, int]:
        """Spatial size of the batch side."""
        (bh, bw), (th, tw), (ah, aw) = self.block, self.before, self.after
        return (self.image_h + th + ah) // bh, (self.image_w + tw + aw) // bw


def geometry(graph, node, to_batch: bool) -> SpaceBatch:
    data = types(graph, node)[0]
    key = "paddings" if to_batch else "crops"
    block = [int(b) for b in node.attrs["block_shape"]]
    pairs = [int(v) for v in node.attrs[key]]
    spatial = data.rank - 2
    if spatial not in (1, 2) or len(block) != spatial or len(pairs) != 2 * spatial:
        fail(graph, node, f"{node.op} needs a 3-D or 4-D input with a block and a ({key} before, after) pair "
                          f"per spatial axis, got {list(data.shape)}, block {block}, {key} {pairs}")
    if min(block) < 1 or min(pairs) < 0 or max(block + pairs) > INT32_MAX // 4 or \
            max(data.shape) + max(pairs) + max(block) > INT32_MAX // 2:
        fail(graph, node, f"block {block} must be positive and {key} {pairs} non-negative, within int32 image "
                          f"arithmetic")
    if spatial == 1:
        block, pairs = block + [1], pairs + [0, 0]
    shape = list(data.shape) if spatial == 2 else [data.shape[0], data.shape[1], 1, data.shape[2]]
    n, h, w, c = shape
    before, after = (pairs[0], pairs[2]), (pairs[1], pairs[3])
    if to_batch:
        g = SpaceBatch(n, h, w, c, tuple(block), before, after, spatial)
        if (h + before[0] + after[0]) % block[0] or (w + before[1] + after[1]) % block[1]:
            fail(graph, node, f"padded image {h + before[0] + after[0]}x{w + before[1] + after[1]} is not a "
                              f"multiple of block {block[:spatial]}")
        return g
    if n % (block[0] * block[1]):
        fail(graph, node, f"batch {n} is not a multiple of the block's {block[0] * block[1]} phases")
    image = (h * block[0] - before[0] - after[0], w * block[1] - before[1] - after[1])
    if min(image) < 1:
        fail(graph, node, f"crops {pairs[:2 * spatial]} remove the whole {h * block[0]}x{w * block[1]} image")
    return SpaceBatch(n // (block[0] * block[1]), image[0], image[1], c, tuple(block), before, after, spatial)


def batch_side_shape(g: SpaceBatch) -> tuple[int, ...]:
    gh, gw = g.grid
    shape = (g.batches * g.block[0] * g.block[1], gh, gw, g.channels)
    return shape if g.spatial == 2 else (shape[0], shape[1], shape[3])


def image_shape(g: SpaceBatch) -> tuple[int, ...]:
    shape = (g.batches, g.image_h, g.image_w, g.channels)
    return shape if g.spatial == 2 else (shape[0], shape[1], shape[3])


def params(graph, node, g: SpaceBatch, to_batch: bool) -> dict:
    data, out = raw_copy(graph, node, node.op)
    gh, gw = g.grid
    pad_byte = 0
    if to_batch and data.quant is not None and data.dtype.itemsize == 1:
        pad_byte = out.quant.zero_point & 0xFF if out.quant is not None else 0
    elif to_batch and data.quant is not None and data.quant.zero_point != 0:
        fail(graph, node, f"space_to_batch pads {data.dtype.value} with zero point {data.quant.zero_point}: "
                          f"only one-byte elements take a nonzero padding byte")
    return {"batches": g.batches, "image_h": g.image_h, "image_w": g.image_w, "grid_h": gh, "grid_w": gw,
            "block_h": g.block[0], "block_w": g.block[1], "offset_h": g.before[0], "offset_w": g.before[1],
            "pixel_bytes": g.channels * data.dtype.itemsize, "pad_byte": pad_byte}


def phases(g: SpaceBatch, image: np.ndarray) -> np.ndarray:
    """space_to_batch of a padded NHWC image, by numpy reshapes (TensorFlow's definition)."""
    (bh, bw), (gh, gw) = g.block, g.grid
    x = image.reshape(g.batches, gh, bh, gw, bw, g.channels).transpose(2, 4, 0, 1, 3, 5)
    return np.ascontiguousarray(x).reshape(bh * bw * g.batches, gh, gw, g.channels)


def zero_value(graph, node, dtype):
    q = out_type(graph, node).quant
    return q.zero_point if q is not None and not np.dtype(dtype).kind == "f" else 0
