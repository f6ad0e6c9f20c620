"""Every kernel, by op and backend; `kernels_for` gives the ones a compile may use, preferred first.

Kernel modules register themselves on import (`@kernel`), as ops do in ir/registry.py; each backend folder is
imported once, in full, the first time a kernel is asked for.
"""

from __future__ import annotations

import importlib
import pkgutil

from .base import Kernel

BACKENDS = ("cmsis_nn", "arm_dsp", "portable")  # preference order, where a compile allows each
_KERNELS: dict[tuple[str, str], Kernel] = {}
_LOADED = False


def kernel(cls: type[Kernel]) -> type[Kernel]:
    """Class decorator: register a kernel for (its op, its backend)."""
    key = (cls.op, cls.backend)
    if not cls.op or cls.backend not in BACKENDS or key in _KERNELS:
        raise RuntimeError(f"kernel {cls.__name__}: op {cls.op!r} / backend {cls.backend!r} empty, unknown or twice")
    _KERNELS[key] = cls()
    return cls


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for backend in BACKENDS:
        package = importlib.import_module(f"{__package__}.{backend}")
        for module in sorted(m.name for m in pkgutil.iter_modules(package.__path__)):
            importlib.import_module(f"{package.__name__}.{module}")


def kernels_for(op: str, backends: tuple[str, ...]) -> list[Kernel]:
    """The kernels of `op` in the given backends, in BACKENDS' preference order."""
    _load()
    return [_KERNELS[(op, b)] for b in BACKENDS if b in backends and (op, b) in _KERNELS]


def all_kernels() -> dict[tuple[str, str], Kernel]:
    _load()
    return dict(sorted(_KERNELS.items()))
