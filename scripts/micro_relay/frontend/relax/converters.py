"""The converter table: Relax operator name -> function(ctx, attrs, args, out, hint) -> lowered value."""

from __future__ import annotations

from typing import Callable

CONVERTERS: dict[str, Callable] = {}
TIR_CONVERTERS: dict[str, Callable] = {}  # call_tir of these importer-made TIR functions


def converts(*names: str):
    def wrap(fn):
        for name in names:
            CONVERTERS[f"relax.{name}"] = fn
        return fn

    return wrap


def converts_tir(*names: str):
    def wrap(fn):
        for name in names:
            TIR_CONVERTERS[name] = fn
        return fn

    return wrap


from . import convert_nn, convert_tensor  # noqa: E402,F401  (registration by import)
