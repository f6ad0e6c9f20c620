"""The Micro Relay IR: static tensor types, a flat node list, an op registry, a verifier and a text form."""

from .types import DType, Quant, TensorType
from .graph import Graph, Node, Tensor

__all__ = ["DType", "Quant", "TensorType", "Graph", "Node", "Tensor"]
