"""Frontends: read a model file into a Micro Relay graph."""

from __future__ import annotations

from pathlib import Path

from ..errors import CompileError
from ..input_files import require_regular_file
from ..ir.graph import Graph


class UnexpectedModelError(CompileError):
    """An exception other than CompileError escaped while a model file was read: a Micro Relay bug that a
    range check should have turned into a precise error. The user still gets one line naming the file;
    `cause` keeps the original exception for tests, which treat this error as a failure."""

    def __init__(self, where: str, cause: BaseException):
        super().__init__(f"cannot read this model (unexpected {type(cause).__name__}; please report it)", where)
        self.cause = f"{type(cause).__name__}: {cause}"


def load_model(path: str | Path, input_shapes: dict[str, tuple[int, ...]] | None = None,
               io_layout: str = "nhwc") -> Graph:
    """Read a model file into an unverified Micro Relay graph: TFLite by its TFL3 identifier, ONNX by its
    .onnx suffix. `input_shapes` fixes dynamic ONNX input dimensions; `io_layout` says whether 4-D ONNX
    inputs and outputs are stored NHWC (no runtime transpose, the default) or keep the model's NCHW."""
    path = Path(path)
    try:
        require_regular_file(path, "model")
        data = path.read_bytes()
    except FileNotFoundError:
        raise CompileError("model file not found", str(path)) from None
    except OSError as exc:
        raise CompileError(f"cannot read model file: {exc.strerror}", str(path)) from None
    try:
        return _read(path, data, input_shapes, io_layout)
    except CompileError:
        raise
    except Exception as exc:  # the last line of defence: one line naming the file, never a traceback
        raise UnexpectedModelError(str(path), exc) from exc


def _read(path: Path, data: bytes, input_shapes, io_layout: str) -> Graph:
    if len(data) >= 8 and data[4:8] == b"TFL3":
        if input_shapes:
            raise CompileError("--input-shape applies to ONNX models only (TFLite shapes are static)", str(path))
        from .tflite import read_tflite

        return read_tflite(data, str(path))
    if path.suffix.lower() == ".onnx":
        from .relax import load_onnx

        return load_onnx(path, data, input_shapes, io_layout)
    if path.suffix == ".tflite":
        raise CompileError("not a TFLite flatbuffer (no TFL3 identifier)", str(path))
    raise CompileError("unrecognized model format (expected a .tflite flatbuffer or an .onnx file)", str(path))

