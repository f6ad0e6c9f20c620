"""What the portable kernels of the 2-D pools share (crt/src/mr_max_pool2d.c, mr_avg_pool2d.c: the call and
the access order), and the array initializers of the copy kernels' parameter structs (pad, strided_slice,
transpose, mean)."""

from __future__ import annotations

from ...codegen.c_text import float_literal
from ..base import Kernel, KernelPlan
from ..overlap import window_delta


def c_array(values) -> str:
    """A brace initializer for a fixed-size int32_t array member of a parameter struct."""
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def pool_overlap_delta(graph, node, p) -> int:
    """KernelPlan.overlap_delta of both pools: their kernels walk output rows in order, each row reading only
    the input rows of its windows (kernels/overlap.py)."""
    return window_delta(p["batches"], p["in_h"], p["in_w"], p["channels"], p["out_h"], p["out_w"], p["channels"],
                        p["stride_h"], p["pad_top"], graph.type_of(node.inputs[0]).dtype.itemsize)


def pool_emit(ctx, node, p, op: str) -> str:
    fields = {k: p[k] for k in ("batches", "in_h", "in_w", "channels", "out_h", "out_w", "filter_h", "filter_w",
                                "stride_h", "stride_w", "pad_top", "pad_left")}
    if p["kind"] == "f32":
        fields.update(act_min=float_literal(p["act_min"]), act_max=float_literal(p["act_max"]))
        params = ctx.params(f"mr_{op}_f32_params", fields)
    else:
        fields.update(act_min=p["act_min"], act_max=p["act_max"])
        params = ctx.params(f"mr_{op}_q_params", fields)
    return f"mr_{op}_{p['kind']}({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])});"


class PoolKernel(Kernel):
    """A pool on its portable kernel mr_<source>_<kind>: no scratch, output rows in order (the overlap)."""

    backend = "portable"

    def plan(self, target, graph, node, p, options):
        return KernelPlan(overlap_delta=pool_overlap_delta(graph, node, p), sources=self.sources)

    def emit(self, ctx, node, p, plan):
        return pool_emit(ctx, node, p, self.sources[0])
