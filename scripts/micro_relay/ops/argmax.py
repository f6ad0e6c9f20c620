"""argmax: TFLite ARG_MAX along one axis (semantics in _reduce.py ArgMinMax)."""

from __future__ import annotations

from ..ir.registry import register
from ._reduce import ArgMinMax


@register
class Argmax(ArgMinMax):
    name = "argmax"
    greater = True
