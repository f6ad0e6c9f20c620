"""argmin: TFLite ARG_MIN along one axis (semantics in _reduce.py ArgMinMax)."""

from __future__ import annotations

from ..ir.registry import register
from ._reduce import ArgMinMax


@register
class Argmin(ArgMinMax):
    name = "argmin"
    greater = False
