"""Dilated max and average pooling as a subsample then an ordinary pool.

Output row oy of a pool with stride s, dilation d and top padding P reads rows oy*s - P + ky*d (ky < k). When
d divides s, every such row is q + d*j with q = (-P) mod d and j = oy*(s/d) - m + ky, m = (P + q) / d: the
rows of one phase q. So the pool is an ordinary one (kernel k, stride s/d, top padding m) over the rows
q, q+d, q+2d, ... of the input: a strided slice. Padding is never counted by these pools (max ignores it,
average divides by the taps inside the image), and the taps inside the image are the same in both forms, so
the results are the same values. A stride that d does not divide mixes phases and is refused.
"""

from __future__ import annotations

from ...ir.types import TensorType


def _axis_plan(ctx, size: int, k: int, s: int, d: int, before: int, outs: int, axis: str):
    """(first row, rows kept, new stride, new top padding, new bottom padding) along one axis."""
    if s % d:
        ctx.fail(f"dilated pooling along the {axis} with stride {s} not a multiple of dilation {d} is not supported")
    q = (-before) % d
    m = (before + q) // d
    stride = s // d
    rows = max(0, (size - q + d - 1) // d)
    needed = (outs - 1) * stride - m + k  # rows of the subsampled axis any window reaches
    rows = min(rows, needed)
    if rows < 1:
        ctx.fail(f"a dilated pooling window along the {axis} holds no input pixel")
    after = (outs - 1) * stride + k - rows - m
    return q, rows, stride, m, max(after, 0)


def dilated_pool(ctx, op: str, data: str, pool_size, strides, dilation, padding, out_hw, hint: str) -> str:
    """`op` (nn.max_pool2d or nn.avg_pool2d) over NHWC `data` with dilation, as a strided slice and a pool."""
    t = ctx.type_of(data)
    n, h, w, c = t.shape
    top, left = padding[0], padding[1]
    ys = _axis_plan(ctx, h, pool_size[0], strides[0], dilation[0], top, out_hw[0], "height")
    xs = _axis_plan(ctx, w, pool_size[1], strides[1], dilation[1], left, out_hw[1], "width")
    (qy, rows, sy, my, by), (qx, cols, sx, mx, bx) = ys, xs
    shape = (n, rows, cols, c)
    sub = ctx.node("strided_slice", [data], TensorType(shape, t.dtype, t.quant), hint + "_phase",
                   begin=(0, qy, qx, 0), end=(n, qy + (rows - 1) * dilation[0] + 1, qx + (cols - 1) * dilation[1] + 1, c),
                   strides=(1, dilation[0], dilation[1], 1), newshape=shape)
    return ctx.node(op, [sub], TensorType((n, *out_hw, c), t.dtype, t.quant), hint,
                    pool_size=tuple(pool_size), strides=(sy, sx), padding=(my, mx, by, bx))
