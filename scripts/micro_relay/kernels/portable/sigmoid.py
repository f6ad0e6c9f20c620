"""sigmoid on the portable kernel (crt/src/mr_sigmoid.c): int8 (gemmlowp fixed point), int16
(crt/src/mr_logistic16.c, the interpolated table) and float32."""

from __future__ import annotations

from ..registry import kernel
from ._elementwise import LogisticKernel
from ._unary import Logistic16Mixin, QuantizedOnceMixin


@kernel
class PortableSigmoid(QuantizedOnceMixin, Logistic16Mixin, LogisticKernel):
    op = "sigmoid"
    sources = ("sigmoid",)
