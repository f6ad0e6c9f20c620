"""The converter table: Relax operator name -> function(ctx, attrs, args, out, hint) -> lowered value."""

from __future__ import annotations

from typing import Callable

CONVERTERS: dict[str, Callable] = {}


def converts(*names: str):
    def wrap(fn):
        for name in names:
            CONVERTERS[f"relax.{name}"] = fn
        return fn

    return wrap


from . import convert_nn, convert_tensor  # noqa: E402,F401  (registration by import)
