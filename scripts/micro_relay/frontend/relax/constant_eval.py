"""Relax calls whose operands are all constants, evaluated with numpy while lowering.

Relax's FoldConstant pass builds and runs a TIR function per foldable call: on a 50-layer network that is
hundreds of LLVM builds, most of the import time. Folding batch norms into convolutions (FoldBatchnormToConv2D),
decomposing them (DecomposeOpsForInference) and PyTorch's index arithmetic (reflect padding as arange, abs and
subtract) leave only a few element-wise operators on constants, and numpy computes them here in the result's
own type. Calls with a runtime operand, a QConst or an operator not listed go to the converters as before.
"""

from __future__ import annotations

import numpy as np

_ELEMENTWISE = {
    "relax.add": np.add, "relax.subtract": np.subtract, "relax.multiply": np.multiply, "relax.divide": np.divide,
    "relax.power": np.power, "relax.maximum": np.maximum, "relax.minimum": np.minimum,
    "relax.sqrt": np.sqrt, "relax.rsqrt": lambda x: 1 / np.sqrt(x), "relax.negative": np.negative,
    "relax.exp": np.exp, "relax.abs": np.abs, "relax.square": np.square, "relax.floor": np.floor,
    "relax.ceil": np.ceil, "relax.isnan": np.isnan, "relax.where": np.where, "relax.less": np.less,
    "relax.less_equal": np.less_equal, "relax.greater": np.greater, "relax.greater_equal": np.greater_equal,
    "relax.equal": np.equal, "relax.not_equal": np.not_equal, "relax.logical_and": np.logical_and,
    "relax.logical_or": np.logical_or, "relax.logical_not": np.logical_not,
}


OPERATORS = frozenset({*_ELEMENTWISE, "relax.arange", "relax.clip"})


def _integral_divide(a, b):
    return np.floor_divide(a, b) if np.issubdtype(np.result_type(a, b), np.integer) else np.divide(a, b)


def evaluate(op: str, attrs, args: list, out):
    """The numpy value of the call, or None when it is not one evaluated here."""
    if op == "relax.arange":
        start, stop, step = (np.asarray(a).item() for a in args[:3])
        result = np.arange(start, stop, step).astype(out.dtype)
        return result if result.shape == tuple(out.shape) else None
    if op == "relax.clip" and isinstance(args[0], np.ndarray) and all(isinstance(a, (int, float)) for a in args[1:]):
        return np.clip(args[0], args[1], args[2]).astype(out.dtype)  # PyTorch's replicate padding clips indices
    fn = _ELEMENTWISE.get(op)
    if fn is None or not args or not all(isinstance(a, (np.ndarray, int, float)) for a in args):
        return None
    args = [np.asarray(a, dtype=out.dtype) if isinstance(a, (int, float)) else a for a in args]  # PrimValues
    if op == "relax.divide":
        fn = _integral_divide
    with np.errstate(all="ignore"):
        result = np.asarray(fn(*args))
    if tuple(result.shape) != tuple(out.shape):
        return None
    return result.astype(out.dtype)
