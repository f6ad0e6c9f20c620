"""cast: TFLite CAST (ONNX Cast) between int8, int16, int32, uint32, float32 and bool.

TFLite Micro's results (probed on its interpreter): integer to integer wraps modulo 2^bits; float to integer
truncates toward zero and saturates to the target's range, NaN giving 0; anything nonzero (NaN too) becomes
true, bool becomes 0 / 1; integer to float rounds to nearest. Quantization parameters are ignored: raw values
convert (a quantized int8 3 becomes 3.0f). uint8 and int64 are refused, as TFLite Micro refuses them.
"""

from __future__ import annotations

import numpy as np

from ..ir.registry import Attr, OpDef, register
from ..ir.types import DType, TensorType
from ._common import fail, out_type, types

CAST_DTYPES = (DType.INT8, DType.INT16, DType.INT32, DType.UINT32, DType.FLOAT32, DType.BOOL)
C_TYPE_CODE = {DType.FLOAT32: "MR_FLOAT32", DType.INT8: "MR_INT8", DType.INT16: "MR_INT16",
               DType.INT32: "MR_INT32", DType.UINT32: "MR_UINT32", DType.BOOL: "MR_BOOL"}


def convert(x: np.ndarray, dtype: DType) -> np.ndarray:
    """numpy spelling of the C kernel's conversions (crt/src/mr_cast.c)."""
    target = dtype.numpy
    if dtype is DType.BOOL:
        return x != 0
    if dtype.is_float:
        return x.astype(np.float32)
    if x.dtype.kind == "f":
        v = np.nan_to_num(x.astype(np.float64), nan=0.0, posinf=dtype.max, neginf=dtype.min)
        return np.trunc(np.clip(v, dtype.min, dtype.max)).astype(target)
    return x.astype(np.int64).astype(target)  # wraps modulo 2^bits


@register
class Cast(OpDef):
    name = "cast"
    attrs = {"dtype": Attr(str)}
    dtypes = CAST_DTYPES

    def infer(self, graph, node):
        data = types(graph, node)[0]
        try:
            dtype = DType.parse(node.attrs["dtype"])
        except ValueError:
            fail(graph, node, f"cast to unknown dtype {node.attrs['dtype']!r}")
        return [TensorType(data.shape, dtype, out_type(graph, node).quant)]

    def prepare(self, graph, node):
        data, out = types(graph, node)[0], out_type(graph, node)
        for what, t in (("input", data), ("output", out)):
            if t.dtype not in CAST_DTYPES:
                fail(graph, node, f"cast {what} is {t.dtype.value}; casts run between "
                                  f"{', '.join(d.value for d in CAST_DTYPES)}")
        return {"count": data.size, "in_type": C_TYPE_CODE[data.dtype], "out_type": C_TYPE_CODE[out.dtype]}

    def reference(self, graph, node, p, inputs):
        return [convert(inputs[0], out_type(graph, node).dtype)]
