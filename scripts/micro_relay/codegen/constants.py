"""What a model keeps in flash, by part: the one definition of its weights that NAME.plan.json and the budget
check share.

NAME.c declares its constants under names that say their part, so the budget check can split a linked image's
symbols the same way (budget/judge.py):
- NAME_w<n>: a constant tensor of the model (weights, lookup data...), as the model file holds it;
- NAME_b<n>: a constant tensor read as a bias (input 2 of a convolution or dense layer);
- NAME_b<n> also: a bias the compiler derives (folded with the zero points, widened);
- NAME_q<n>: requantization multipliers and shifts the compiler derives from the scales;
- NAME_k<n>: any other array the compiler derives for a kernel: lookup tables, twiddles, row sizes;
- NAME_p<n>: a kernel's parameter struct (shapes, pointers to the arrays above).
All but the last are arrays whose bytes are known here, to the byte: their sum is the model's weights figure.
A parameter struct's size is the C compiler's (pointer width, padding), so it is counted after the link only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ir.graph import Graph
from ..ops.fused_rows import layers
from .integrity import WeightsCrc

PARTS = ("weights", "biases", "requantization", "tables")
TENSOR_PREFIX = {"weights": "w", "biases": "b"}
DERIVED_PREFIX = {"weights": "w", "biases": "b", "requantization": "q", "tables": "k"}
PARAMETER_PREFIX = "p"
PART_OF_PREFIX = {"w": "weights", "b": "biases", "q": "requantization", "k": "tables", "p": "params"}
BIAS_OPS = frozenset({"nn.conv2d", "nn.depthwise_conv2d", "nn.conv2d_transpose", "nn.dense"})
BIAS_INPUT = 2


def bias_constants(graph: Graph) -> frozenset[str]:
    """The constant tensors that every node reading them reads as its bias."""
    slots: dict[str, set[bool]] = {}
    for node in layers(graph.nodes):  # a fused.rows node's biases are its layers'
        for index, name in enumerate(node.inputs):
            if name and graph.tensors[name].is_constant:
                slots.setdefault(name, set()).add(node.op in BIAS_OPS and index == BIAS_INPUT)
    return frozenset(name for name, roles in slots.items() if roles == {True})


@dataclass
class FlashConstants:
    """Bytes per part (PARTS) of the arrays NAME.c declares, and how many parameter structs it declares."""

    bytes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PARTS, 0))
    parameter_structs: int = 0
    section: str | None = None  # the linker section of the arrays (--weights-section), None: .rodata
    crc: WeightsCrc = field(default_factory=WeightsCrc)  # what NAME_verify() checks the arrays against

    def add(self, part: str, ident: str, values, dtype) -> None:
        """Count a declared array `ident` of `values` (DType `dtype`; one element when empty, as declared)."""
        self.bytes[part] += max(int(np.asarray(values).size), 1) * dtype.itemsize
        self.crc.add(ident, values, dtype)

    @property
    def total(self) -> int:
        return sum(self.bytes.values())

    def report(self) -> dict:
        """NAME.plan.json's weights entry."""
        return {"bytes": self.total, **{part: self.bytes[part] for part in PARTS},
                "parameter_structs": self.parameter_structs, "section": self.section, "crc32": self.crc.text}
