"""tanh on the portable kernel (crt/src/mr_tanh.c): int8 (gemmlowp fixed point), int16
(crt/src/mr_logistic16.c, the interpolated table) and float32."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import LogisticKernel
from ._unary import Logistic16Mixin, QuantizedOnceMixin


@kernel
class PortableTanh(QuantizedOnceMixin, Logistic16Mixin, LogisticKernel):
    op = "tanh"
    sources = ("tanh",)
