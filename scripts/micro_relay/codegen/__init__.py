"""The C emitter: a planned graph becomes NAME.h, NAME.c and the runtime sources it calls."""

from .emit import emit_model

__all__ = ["emit_model"]
