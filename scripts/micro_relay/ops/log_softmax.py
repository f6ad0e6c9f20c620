"""nn.log_softmax over the last axis, float32 (ONNX LogSoftmax, PyTorch log_softmax): the classifier head of
networks trained with NLL loss. out = (x - max) - log(sum(exp(x - max))), rows summed in order as the kernel
does. Integer log_softmax is not supported (a quantized model keeps it in float between dequantize and
quantize, or the quantizer is told --keep-float nn.log_softmax).
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, register
from ..ir.types import DType
from ._common import fail, out_type, types
from ._elementwise import unary_infer


@register
class LogSoftmax(OpDef):
    name = "nn.log_softmax"
    dtypes = (DType.FLOAT32,)
    inplace = True  # each row is read before it is written

    def infer(self, graph, node):
        return unary_infer(graph, node)

    def prepare(self, graph, node):
        data, out = types(graph, node)[0], out_type(graph, node)
        if data.dtype != DType.FLOAT32 or out.dtype != DType.FLOAT32:
            fail(graph, node, f"log_softmax supports float32 only, got {data.dtype.value}")
        depth = data.shape[-1] if data.rank else 1
        return {"rows": data.size // depth, "depth": depth}

    def reference(self, graph, node, p, inputs):
        rows = inputs[0].astype(np.float32).reshape(p["rows"], p["depth"])
        shifted = (rows - rows.max(axis=1, keepdims=True)).astype(np.float32)
        total = np.zeros((p["rows"], 1), dtype=np.float32)
        for c in range(p["depth"]):
            total += np.exp(shifted[:, c:c + 1]).astype(np.float32)
        out = (shifted - np.log(total).astype(np.float32)).astype(np.float32)
        return [out.reshape(inputs[0].shape)]
