"""The converter table: Relax operator name -> function(ctx, attrs, args, out, hint) -> lowered value.

The converters live in the convert_*.py modules beside this one, a family per module; every one of them is
imported here (registration by import), so a new family is a new file."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path

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


for _module in sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])):
    if _module.startswith("convert_"):
        importlib.import_module(f"{__package__}.{_module}")
