"""nn.layer_norm: ONNX LayerNormalization (Relax nn.layer_norm), float32.

Attributes: axis (the first normalized axis: every axis from it to the last is normalized together, as
ONNX's `axis`), epsilon. Inputs: data, gamma and beta, both of the normalized shape data.shape[axis:].
Per row of n = prod(shape[axis:]) values, in float32 and in this order (ONNX's function definition, with the
two-pass variance, which stays accurate when the mean is large against the spread):
    mean = (0.f + x...) / n;  var = (0.f + (x - mean)^2...) / n;  inv = 1 / sqrtf(var + epsilon)
    out = (x - mean) * inv * gamma + beta
There is no TFLite builtin; the oracle is onnxruntime, which sums E[x^2] - mean^2 in one pass, so outputs
agree within float rounding, not bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, types


@register
class LayerNorm(OpDef):
    name = "nn.layer_norm"
    attrs = {"axis": Attr(int, -1), "epsilon": Attr(float, 1e-5)}
    num_inputs = (3, 3)
    dtypes = (DType.FLOAT32,)

    def _axis(self, graph, node) -> int:
        data = types(graph, node)[0]
        axis = int(node.attrs.get("axis", -1))
        if not -data.rank <= axis < data.rank:
            fail(graph, node, f"nn.layer_norm axis {axis} is not an axis of a rank-{data.rank} tensor")
        return axis % data.rank

    def infer(self, graph, node):
        data = types(graph, node)[0]
        axis = self._axis(graph, node)
        for what, t in zip(("gamma", "beta"), types(graph, node, 3)[1:]):
            if t is None or t.shape != data.shape[axis:]:
                fail(graph, node, f"nn.layer_norm {what} must have the normalized shape {list(data.shape[axis:])}, "
                                  f"got {None if t is None else list(t.shape)}")
        return [TensorType(data.shape, data.dtype)]

    def prepare(self, graph, node):
        data, gamma, beta = types(graph, node, 3)
        if any(t.dtype is not DType.FLOAT32 for t in (data, gamma, beta, out_type(graph, node))):
            fail(graph, node, "nn.layer_norm runs float32 only (data, gamma, beta and output)")
        epsilon = float(node.attrs.get("epsilon", 1e-5))
        if not math.isfinite(epsilon) or epsilon < 0 or epsilon > float(np.finfo(np.float32).max):
            fail(graph, node, f"nn.layer_norm epsilon {epsilon} is not a finite non-negative float32")
        axis = self._axis(graph, node)
        inner = int(np.prod(data.shape[axis:], dtype=np.int64))
        if inner == 0 or data.size == 0:
            fail(graph, node, f"nn.layer_norm of an empty tensor {list(data.shape)}")
        return {"outer": data.size // inner, "inner": inner, "epsilon": float(np.float32(epsilon))}

    def reference(self, graph, node, p, inputs):
        x, gamma, beta = inputs
        rows = x.reshape(p["outer"], p["inner"])
        n = np.float32(p["inner"])
        total = np.zeros(p["outer"], np.float32)
        for j in range(p["inner"]):
            total = (total + rows[:, j]).astype(np.float32)
        mean = (total / n).astype(np.float32)
        centered = (rows - mean[:, None]).astype(np.float32)
        var = np.zeros(p["outer"], np.float32)
        for j in range(p["inner"]):
            var = (var + centered[:, j] * centered[:, j]).astype(np.float32)
        var = (var / n).astype(np.float32)
        inv = (np.float32(1) / np.sqrt(var + np.float32(p["epsilon"]))).astype(np.float32)
        out = centered * inv[:, None] * gamma.reshape(1, -1) + beta.reshape(1, -1)
        return [out.astype(np.float32).reshape(x.shape)]

    def macs(self, graph, node):
        return 4 * types(graph, node)[0].size
