"""ONNX and PyTorch frontends: apache-tvm's Relax importers, then one walk into Micro Relay's IR.

tvm is imported only when one of these functions runs (it costs seconds), never by the TFLite path.
"""

from __future__ import annotations

from .importers import from_torch, load_onnx

__all__ = ["from_torch", "load_onnx"]
