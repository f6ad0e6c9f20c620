"""What every TFLite converter shares: the context (tensors read so far, where errors point, option
and constant readers), the converter table keyed by builtin code, and `make_node`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tflite.ActivationFunctionType import ActivationFunctionType as Act
from tflite.BuiltinOptions import BuiltinOptions

from ....errors import CompileError
from ....ir.graph import Node, Tensor

_OPTION_NAMES = {v: k for k, v in vars(BuiltinOptions).items() if not k.startswith("_")}
_ACTIVATIONS = {Act.NONE: "none", Act.RELU: "relu", Act.RELU6: "relu6", Act.RELU_N1_TO_1: "relu_n1_to_1"}


class ConvertContext:
    """What converters share: the tensors read so far and where errors point."""

    def __init__(self, tensors: dict[str, Tensor]):
        self.tensors = tensors
        self.where = ""
        self.op_index = 0

    def fail(self, what: str):
        raise CompileError(what, self.where)

    def options(self, op, cls, required: bool = False):
        """The operator's options table read as `cls`, None when absent (schema defaults) unless `required`.
        The union's type tag must name `cls`: another table's bytes read as `cls` would be garbage."""
        expected = getattr(BuiltinOptions, cls.__name__)
        kind = op.BuiltinOptionsType()
        table = op.BuiltinOptions()
        if kind == BuiltinOptions.NONE or table is None:
            if required:
                self.fail(f"operator has no {cls.__name__}")
            return None
        if kind != expected:
            self.fail(f"builtin options are {_OPTION_NAMES.get(kind, f'unknown type {kind}')}, expected {cls.__name__}")
        opts = cls()
        opts.Init(table.Bytes, table.Pos)
        return opts

    def axis(self, value: int, rank: int, what: str) -> int:
        """A TFLite axis in [-rank, rank) as a non-negative index."""
        if not -rank <= value < rank:
            self.fail(f"{what} {value} is outside [{-rank}, {rank}) for a rank-{rank} tensor")
        return value % rank

    def activation(self, code: int) -> str:
        if code not in _ACTIVATIONS:
            self.fail(f"unsupported fused activation {code}")
        return _ACTIVATIONS[code]

    def constant(self, name: str, what: str) -> np.ndarray:
        tensor = self.tensors.get(name)
        if tensor is None or not tensor.is_constant:
            self.fail(f"{what} must be a constant tensor")
        return tensor.data

    def shape(self, name: str) -> tuple[int, ...]:
        if not name:
            self.fail("a required input is absent (tensor index -1)")
        return self.tensors[name].type.shape

    def rank(self, name: str, rank: int, what: str) -> tuple[int, ...]:
        shape = self.shape(name)
        if len(shape) != rank:
            self.fail(f"{what} must be {rank}-D, got shape {list(shape)}")
        return shape

    def need_inputs(self, inputs, low: int, high: int | None = None):
        high = low if high is None else high
        present = len(inputs)
        if not low <= present <= high:
            self.fail(f"expected {low}..{high} inputs, got {present}")


CONVERTERS: dict[int, Callable] = {}
OUTPUTLESS: set[int] = set()  # builtin codes whose operators write no tensor (ASSIGN_VARIABLE, CALL_ONCE)


def converts(*codes: int):
    def wrap(fn):
        for code in codes:
            CONVERTERS[code] = fn
        return fn

    return wrap


def make_node(ctx, op_name, inputs, outputs, **attrs) -> Node:
    return Node(op_name, tuple(inputs), tuple(outputs), attrs, name=f"{ctx.op_index}")
