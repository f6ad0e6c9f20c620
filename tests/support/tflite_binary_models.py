"""Single-op TFLite models of the binary math family (DIV, MAXIMUM, MINIMUM, POW, SQUARED_DIFFERENCE,
FLOOR_DIV, FLOOR_MOD, the comparisons, the logical ops, SELECT / SELECT_V2, PRELU, BATCH_MATMUL), written with
Micro Relay's TFLite writer. Like tflite_models.py, builders take readable parameters and only make models
TFLite Micro's Prepare accepts; a constant operand's data comes from a generator seeded by the caller.

`samples` makes seeded inputs for a model whose inputs must avoid some values (a zero divisor): it draws as
model_check.random_inputs does and then lets `fix` replace values.
"""

from __future__ import annotations

import numpy as np

from micro_relay.frontend.tflite import read_tflite
from micro_relay.frontend.tflite.writer import TFLiteBuilder

from .model_check import random_inputs
from .tflite_models import INT_LIMITS, broadcast_shape

COMPARISONS = ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL")
LOGICAL = ("LOGICAL_AND", "LOGICAL_OR")


def _quant(dtype: str, quant) -> dict:
    if dtype in ("float32", "int32", "bool") or quant is None:
        return {}
    return {"scale": quant[0], "zero_point": quant[1]}


def _data(rng, dtype: str, shape):
    if dtype == "float32":
        return rng.standard_normal(shape)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    lo, hi = INT_LIMITS[dtype]
    return rng.integers(lo, hi + 1, shape, dtype=np.int64)


def binary_op_model(op="MAXIMUM", dtype="int8", shape1=(1, 4, 4, 3), shape2=(1, 4, 4, 3), quant1=(0.05, 0),
                    quant2=(0.05, 0), out_quant=(0.05, 0), constant_second=False, seed=0, **options) -> bytes:
    """Two broadcast operands; the output is bool for comparisons and logical ops, else the operands' dtype."""
    rng = np.random.default_rng(seed)
    out_dtype = "bool" if op in COMPARISONS or op in LOGICAL else dtype
    b = TFLiteBuilder()
    x = b.tensor("x", shape1, dtype, **_quant(dtype, quant1))
    data = _data(rng, dtype, shape2) if constant_second else None
    y = b.tensor("y", shape2, dtype, data=data, **_quant(dtype, quant2))
    z = b.tensor("z", broadcast_shape(shape1, shape2), out_dtype, **_quant(out_dtype, out_quant))
    b.op(op, [x, y], [z], **options)
    return b.inputs(*([x] if constant_second else [x, y])).outputs(z).build()


def logical_not_model(shape=(1, 4, 4, 3)) -> bytes:
    b = TFLiteBuilder()
    x = b.tensor("x", shape, "bool")
    y = b.tensor("y", shape, "bool")
    b.op("LOGICAL_NOT", [x], [y])
    return b.build()


def select_model(op="SELECT_V2", dtype="int8", cond_shape=(1, 4, 4, 3), x_shape=(1, 4, 4, 3), y_shape=(1, 4, 4, 3),
                 quant=(0.05, 0)) -> bytes:
    """SELECT / SELECT_V2 with x, y and the output sharing one quantization (raw copies)."""
    q = _quant(dtype, quant)
    out_shape = broadcast_shape(broadcast_shape(cond_shape, x_shape), y_shape) if op == "SELECT_V2" else x_shape
    b = TFLiteBuilder()
    c = b.tensor("cond", cond_shape, "bool")
    x = b.tensor("x", x_shape, dtype, **q)
    y = b.tensor("y", y_shape, dtype, **q)
    z = b.tensor("z", out_shape, dtype, **q)
    b.op(op, [c, x, y], [z])
    return b.build()


def prelu_model(dtype="int8", shape=(1, 4, 4, 3), alpha_shape=(3,), in_quant=(0.05, 0), alpha_quant=(0.01, 0),
                out_quant=(0.05, 0), constant_alpha=True, alpha_dtype=None, seed=0) -> bytes:
    """PRELU with alpha (constant by default, as converters emit it) broadcast against the input; an int16
    input takes an int8 alpha unless `alpha_dtype` says otherwise."""
    rng = np.random.default_rng(seed)
    alpha_dtype = alpha_dtype or ("int8" if dtype == "int16" else dtype)
    b = TFLiteBuilder()
    x = b.tensor("x", shape, dtype, **_quant(dtype, in_quant))
    data = None
    if constant_alpha:
        data = rng.uniform(-0.5, 1.0, alpha_shape) if alpha_dtype == "float32" else _data(rng, alpha_dtype, alpha_shape)
    a = b.tensor("alpha", alpha_shape, alpha_dtype, data=data, **_quant(alpha_dtype, alpha_quant))
    y = b.tensor("y", broadcast_shape(shape, alpha_shape), dtype, **_quant(dtype, out_quant))
    b.op("PRELU", [x, a], [y])
    return b.inputs(*([x] if constant_alpha else [x, a])).outputs(y).build()


def matmul_shapes(lhs_shape, rhs_shape, adj_x=False, adj_y=False) -> tuple[int, ...]:
    rows = lhs_shape[-1] if adj_x else lhs_shape[-2]
    cols = rhs_shape[-2] if adj_y else rhs_shape[-1]
    return broadcast_shape(lhs_shape[:-2], rhs_shape[:-2]) + (rows, cols)


def batch_matmul_model(dtype="int8", lhs_shape=(1, 4, 8), rhs_shape=(1, 8, 5), adj_x=False, adj_y=False,
                       lhs_quant=(0.05, 0), rhs_quant=(0.05, 0), out_quant=(0.1, 0), constant_rhs=False,
                       seed=0) -> bytes:
    """BATCH_MATMUL of two runtime operands (attention), or with a constant rhs."""
    rng = np.random.default_rng(seed)
    b = TFLiteBuilder()
    lhs = b.tensor("lhs", lhs_shape, dtype, **_quant(dtype, lhs_quant))
    data = _data(rng, dtype, rhs_shape) if constant_rhs else None
    rhs = b.tensor("rhs", rhs_shape, dtype, data=data, **_quant(dtype, rhs_quant))
    out = b.tensor("out", matmul_shapes(lhs_shape, rhs_shape, adj_x, adj_y), dtype, **_quant(dtype, out_quant))
    b.op("BATCH_MATMUL", [lhs, rhs], [out], adj_x=adj_x, adj_y=adj_y)
    return b.inputs(*([lhs] if constant_rhs else [lhs, rhs])).outputs(out).build()


def samples(model: bytes, seeds=(0, 1, 2), fix=None, float_scale: float = 1.0) -> list[list[np.ndarray]]:
    """Seeded random inputs; `fix(index, values)` returns input `index` with values outside TFLite's contract
    replaced (a divisor of 0, or one equal to its zero point)."""
    graph = read_tflite(model, "test model")
    result = []
    for seed in seeds:
        values = random_inputs(graph, np.random.default_rng(seed))
        values = [v * np.float32(float_scale) if v.dtype.kind == "f" else v for v in values]
        if fix is not None:
            values = [np.asarray(fix(i, v)).astype(v.dtype) for i, v in enumerate(values)]
        result.append(values)
    return result
