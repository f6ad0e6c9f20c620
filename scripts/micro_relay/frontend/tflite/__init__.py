"""The TFLite frontend: the `tflite` package's flatbuffer schema read straight into the IR."""

from .reader import read_tflite

__all__ = ["read_tflite"]
