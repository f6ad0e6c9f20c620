"""The ordered pass pipeline. Each pass is a pure Graph -> Graph function; the graph is verified before
the first pass and after the last."""

from __future__ import annotations

from typing import Callable

from ..ir.graph import Graph
from ..ir.verify import verify
from .dead_code import eliminate_dead_code
from .dequantize_hybrid_weights import dequantize_hybrid_weights
from .fold_channel_affine import fold_channel_affine
from .fold_constants import fold_constants
from .fold_dilated_conv import fold_dilated_conv
from .fold_flatten_transpose import fold_flatten_transpose
from .fold_padding import fold_padding
from .fuse_activation import fuse_activation
from .hoist_over_reshape import hoist_over_reshape
from .lower_qdq import lower_qdq
from .merge_reshapes import merge_reshapes

Pass = Callable[[Graph], Graph]

DEFAULT_PIPELINE: tuple[tuple[str, Pass], ...] = (
    ("hoist_over_reshape", hoist_over_reshape),  # brings bias adds and relus next to their conv
    ("fold_channel_affine", fold_channel_affine),
    ("lower_qdq", lower_qdq),  # before fold_constants, which would turn dequantized weights into floats
    ("drop_unread_dequantize", eliminate_dead_code),  # the weight dequantize nodes lower_qdq bypassed
    ("dequantize_hybrid_weights", dequantize_hybrid_weights),
    ("fold_constants", fold_constants),
    ("fold_flatten_transpose", fold_flatten_transpose),
    ("fold_dilated_conv", fold_dilated_conv),  # space_to_batch -> conv -> batch_to_space: one dilated conv
    ("fold_padding", fold_padding),  # pad -> conv / depthwise / max pool: the padded copy disappears
    ("fuse_activation", fuse_activation),
    ("merge_reshapes", merge_reshapes),
    ("eliminate_dead_code", eliminate_dead_code),
)


def run_pipeline(graph: Graph, pipeline=DEFAULT_PIPELINE) -> Graph:
    graph = verify(graph)
    for _, fn in pipeline:
        graph = fn(graph)
    return verify(graph)
