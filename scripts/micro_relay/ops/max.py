"""max: TFLite REDUCE_MAX over a set of axes, keepdims or not (semantics in _reduce.py MinMax)."""

from __future__ import annotations

from ..ir.registry import register
from ._reduce import MinMax


@register
class Max(MinMax):
    name = "max"
    greater = True
