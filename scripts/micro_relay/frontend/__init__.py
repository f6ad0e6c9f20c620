"""Frontends: read a model file into a Micro Relay graph."""

from __future__ import annotations

from pathlib import Path

from ..errors import CompileError
from ..ir.graph import Graph


def load_model(path: str | Path) -> Graph:
    """Read a model file (chosen by content, not extension) into an unverified Micro Relay graph."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CompileError("model file not found", str(path)) from None
    except IsADirectoryError:
        raise CompileError("model path is a directory", str(path)) from None
    except OSError as exc:
        raise CompileError(f"cannot read model file: {exc.strerror}", str(path)) from None
    if len(data) >= 8 and data[4:8] == b"TFL3":
        from .tflite import read_tflite

        return read_tflite(data, str(path))
    if path.suffix == ".tflite":
        raise CompileError("not a TFLite flatbuffer (no TFL3 identifier)", str(path))
    raise CompileError("unrecognized model format (expected a .tflite flatbuffer)", str(path))
