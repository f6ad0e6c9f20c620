"""Helpers shared by several ops: activation clamps, requantization multipliers and type checks."""

from __future__ import annotations

import numpy as np

from ..arith.multiplier import activation_range, float_activation_range
from ..errors import CompileError
from ..ir.graph import Graph, Node
from ..ir.registry import Attr, op_where
from ..ir.types import DType, TensorType

ACTIVATION = Attr(str, "none", ("none", "relu", "relu6", "relu_n1_to_1"))
# How an integer node rescales its accumulator. "double": TFLite Micro's MultiplyByQuantizedMultiplier, which
# rounds at 2^-31 and again at the shift (every TFLite model). "single": the exact product rounded once
# (arith/fixedpoint.py mbqm_single), which is what an ONNX QDQ model means (dequantize, compute, quantize) and
# what the QDQ lowering sets (passes/lower_qdq.py). int8 only.
ROUNDING = Attr(str, "double", ("double", "single"))


def fail(graph: Graph, node: Node, what: str):
    raise CompileError(what, op_where(graph, node))


def types(graph: Graph, node: Node, count: int | None = None) -> list[TensorType | None]:
    """Input types, None for absent optional inputs, padded with None to `count` entries."""
    found = [graph.type_of(n) if n else None for n in node.inputs]
    return found + [None] * ((count or 0) - len(found))


def out_type(graph: Graph, node: Node, index: int = 0) -> TensorType:
    return graph.type_of(node.outputs[index])


def require_quant(graph: Graph, node: Node, t: TensorType | None, what: str):
    if t is not None and t.dtype in (DType.INT8, DType.INT16) and t.quant is None:
        fail(graph, node, f"{what} is {t.dtype.value} without quantization parameters")


def clamp_range(graph: Graph, node: Node, activation: str | None = None) -> tuple:
    """(min, max) of the output after the node's fused activation, in the output's own domain."""
    t = out_type(graph, node)
    activation = node.attrs.get("activation", "none") if activation is None else activation
    if t.dtype.is_float:
        return float_activation_range(activation)
    if t.quant is None:
        return t.dtype.min, t.dtype.max
    return activation_range(activation, t.dtype.min, t.dtype.max, t.quant.scale, t.quant.zero_point)


def apply_clamp(x: np.ndarray, lo, hi, dtype) -> np.ndarray:
    if np.dtype(dtype).kind == "f":
        x = x.astype(np.float32)
        return np.minimum(np.maximum(x, np.float32(lo)), np.float32(hi)).astype(np.float32)
    return np.clip(x, lo, hi).astype(dtype)


def single_rounding(graph: Graph, node: Node, dtype: DType, shifts) -> bool:
    """Whether the node requantizes with one rounding (its `rounding` attribute), after checking what that
    arithmetic covers: int8 data, and shifts of at most 30 (the rounding constant is 2^(30 - shift))."""
    if node.attrs.get("rounding", "double") != "single":
        return False
    if dtype != DType.INT8:
        fail(graph, node, f"single-rounding requantization is for int8 data, got {dtype.value}")
    worst = int(np.max(np.asarray(shifts, dtype=np.int64), initial=0))
    if worst > 30:
        fail(graph, node, f"a rescale needs a shift of {worst}; single-rounding requantization allows at most 30")
    return True


def kernel_suffix(dtype: DType) -> str:
    return {DType.INT8: "s8", DType.INT16: "s16", DType.FLOAT32: "f32", DType.INT32: "s32"}.get(dtype, dtype.value)
