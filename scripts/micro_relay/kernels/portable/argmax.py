"""argmax on the portable kernel (crt/src/mr_arg_min_max.c)."""

from __future__ import annotations

from ..registry import kernel
from ._arg_min_max import ArgMinMaxKernel


@kernel
class PortableArgmax(ArgMinMaxKernel):
    op = "argmax"
