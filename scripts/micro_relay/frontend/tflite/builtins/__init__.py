"""One converter per TFLite builtin operator, registered by builtin code.

A converter reads the operator's options and constant inputs and returns Micro Relay nodes. TFLite's
SAME/VALID padding becomes explicit (top, left, bottom, right) pads computed as TFLite does (the odd pixel
goes to the bottom/right); constant shape-like inputs (reshape's shape, pad amounts, slice bounds) become
attributes.

The converters live one family per module in this package and register themselves on import; every
module here is imported, so a new family is a new file.
"""

from __future__ import annotations

import importlib
import pkgutil

from .context import CONVERTERS, OUTPUTLESS, ConvertContext, converts, make_node

__all__ = ["CONVERTERS", "OUTPUTLESS", "ConvertContext", "converts", "make_node"]

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module != "context":
        importlib.import_module(f"{__name__}.{_module}")
