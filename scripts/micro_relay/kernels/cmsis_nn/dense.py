"""nn.dense int8 on CMSIS-NN (arm_fully_connected_s8 / _per_channel_s8 through crt/cmsis_nn/mr_cmsis_dense.c);
no folded bias: CMSIS-NN adds the input offset itself."""

from __future__ import annotations

from ..portable.dense import SOURCES, emit_dense
from ..registry import kernel
from ._adapters import CmsisNnKernel


@kernel
class CmsisNnDense(CmsisNnKernel):
    op = "nn.dense"
    sources = SOURCES

    def emit(self, ctx, node, p, plan):
        return emit_dense(ctx, node, p, plan.entry, folded_bias=False)
