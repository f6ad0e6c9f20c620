"""Walk a Relax function's dataflow block and build a Micro Relay graph.

Only what Micro Relay's IR can hold is accepted: one function, one dataflow block of calls to known Relax
operators on tensors of static shape. A tuple-valued op (split) lowers to a list of values, which tuple
indexing and a tuple-valued result take apart. Anything else (a symbolic dimension, an operator without a
converter) stops with a CompileError naming the binding. Converters live in the convert_*.py modules.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...errors import CompileError
from ...ir.graph import Graph, Tensor
from ...ir.types import TensorType
from . import constant_eval
from .context import DTYPES, TO_NHWC, LowerContext, Value, channels_first
from .converters import CONVERTERS, TIR_CONVERTERS


@dataclass(frozen=True)
class RelaxType:
    """A binding's static result type, as Relax inferred it."""

    shape: tuple[int, ...]
    dtype: str

    @property
    def rank(self) -> int:
        return len(self.shape)


def static_type(ty, what: str, where: str) -> RelaxType:
    """Shape and dtype of a Relax tensor type; symbolic or unknown dimensions are refused."""
    shape = getattr(ty, "shape", None)
    if shape is None or not hasattr(ty, "dtype"):
        raise CompileError(f"{what} is not a tensor of known shape", where)
    dims = []
    for d in shape:
        try:
            dims.append(int(d))
        except (TypeError, ValueError):
            raise CompileError(f"{what} has a symbolic dimension '{d}'; give a static shape with "
                               f"--input-shape NAME=D0,D1,...", where) from None
    return RelaxType(tuple(dims), str(ty.dtype))


def _argument(ctx: LowerContext, arg):
    """A call argument as a converter sees it: a lowered value, numpy constant, shape tuple or scalar."""
    kind = type(arg).__name__
    if arg in ctx.values:
        return ctx.values[arg]
    if kind in ("GenericConst", "Constant"):
        return arg.value.numpy() if hasattr(arg, "value") else arg.data.numpy()
    if kind == "ShapeExpr":
        return tuple(int(v) for v in arg.values)
    if kind == "PrimValue":
        return arg.value.value
    if kind == "Tuple":
        return [_argument(ctx, f) for f in arg.fields]
    if kind in ("IntImm", "FloatImm"):
        return arg.value
    if kind in ("Array", "List"):
        return [_argument(ctx, f) for f in arg]
    if kind in ("Var", "DataflowVar"):
        ctx.fail(f"'{arg.name}' is used before it is defined")
    ctx.fail(f"unsupported argument kind {kind}")


def lower_function(func, source: str, io_layout: str = "nhwc", model_order_outputs: int = 0) -> Graph:
    """Lower a Relax `main` function. io_layout 'nhwc' stores 4-D inputs and outputs NHWC (no runtime
    transpose); 'nchw' keeps the model's layout at the boundary with one transpose per 4-D input/output.
    The last `model_order_outputs` outputs keep the model's layout whatever io_layout says (the inputs of the
    recurrent nodes spliced in afterwards: onnx_recurrent.py)."""
    ctx = LowerContext(source)
    inputs = []
    for param in func.params:
        ctx.where = f"{source}: input '{param.name}'"
        t = static_type(param.ty, f"input '{param.name}'", ctx.where)
        dtype = DTYPES.get(t.dtype)
        if dtype is None:
            ctx.fail(f"input type {t.dtype} is not supported")
        if t.rank == 4 and io_layout == "nhwc":
            shape = tuple(t.shape[a] for a in TO_NHWC)
            name = ctx.add_tensor(param.name, TensorType(shape, dtype))
            ctx.tensors[name] = replace(ctx.tensors[name], source_axes=TO_NHWC)  # the model's layout, on record
            ctx.values[param] = Value(name, nhwc=True)
        else:
            name = ctx.add_tensor(param.name, TensorType(t.shape, dtype))
            ctx.values[param] = Value(name)
        inputs.append(name)
    body = func.body
    for block in body.blocks:
        for binding in block.bindings:
            ctx.values[binding.var] = _lower_binding(ctx, source, binding)
    ctx.where = f"{source}: outputs"
    results = body.body.fields if type(body.body).__name__ == "Tuple" else [body.body]
    values = []
    for var in results:  # a tuple-valued result (split's parts, a recurrent cut's inputs) is its values, in order
        value = ctx.values.get(var)
        values.extend(value if isinstance(value, (list, tuple)) else [value])
    outputs = []
    for index, value in enumerate(values):
        if not isinstance(value, Value):
            ctx.fail(f"output {index} is a constant; a model's outputs must be computed")
        name = value.name
        if value.nhwc and (io_layout == "nchw" or index >= len(values) - model_order_outputs):
            name = ctx.transpose(name, channels_first(ctx.type_of(name).rank), f"output{index}")
        # an output that is also an input or another output gets a name of its own (a reshape: same bytes)
        if name in inputs or name in outputs:
            t = ctx.type_of(name)
            name = ctx.node("reshape", [name], t, f"output{index}", newshape=t.shape)
        outputs.append(name)
    tensors = {n: ctx.tensors[n] for n in inputs}
    tensors.update(ctx.tensors)
    graph = Graph(tensors, (), tuple(inputs), tuple(outputs))
    return graph.with_nodes(ctx.nodes, {k: Tensor(k, v.type, v.data, v.source_axes) for k, v in tensors.items()})


def _lower_binding(ctx: LowerContext, source: str, binding):
    value = binding.value
    var = binding.var
    kind = type(value).__name__
    if kind in ("Var", "DataflowVar"):
        return ctx.values[value]
    if kind in ("GenericConst", "Constant"):
        return _argument(ctx, value)
    if kind == "TupleGetItem":  # one part of a tuple-valued op (split)
        parts = ctx.values.get(value.tuple_value)
        if not isinstance(parts, (list, tuple)):
            ctx.where = f"{source}: {var.name}"
            ctx.fail("a tuple element of something that is not a tuple of tensors")
        return parts[int(value.index)]
    if kind == "Tuple":
        return tuple(_argument(ctx, f) for f in value.fields)
    op = getattr(getattr(value, "op", None), "name", None)
    ctx.where = f"{source}: {var.name} = {op or kind}"
    if op is None:
        ctx.fail(f"unsupported Relax expression {kind} (Micro Relay has no control flow, tuples or calls)")
    converter = CONVERTERS.get(op)
    if op == "relax.call_tir":  # the importer wrote some operators (ONNX Clip) as TIR functions
        function = getattr(value.args[0], "name_hint", "?")
        converter = TIR_CONVERTERS.get(function.rstrip("0123456789"))  # maximum, maximum1, ...
        if converter is None:
            ctx.fail(f"unsupported operator: the importer lowered it to a TIR function '{function}' that Micro "
                     f"Relay cannot map to one of its ops")
        out = static_type(var.ty, f"result of {function}", ctx.where)
        return converter(ctx, None, [_argument(ctx, a) for a in value.args[1].fields], out, var.name)
    if hasattr(var.ty, "fields"):  # a tuple-valued op: one type per part
        out = [static_type(f, f"result {i} of {op}", ctx.where) for i, f in enumerate(var.ty.fields)]
    else:
        out = static_type(var.ty, f"result of {op}", ctx.where)
    args = [_argument(ctx, a) for a in value.args]
    folded = None if isinstance(out, list) else constant_eval.evaluate(op, value.attrs, args, out)
    if folded is not None:
        return folded
    if converter is None:
        supported = ", ".join(sorted(n.removeprefix("relax.") for n in CONVERTERS))
        ctx.fail(f"unsupported operator '{op.removeprefix('relax.')}' (supported: {supported})")
    result = converter(ctx, value.attrs, args, out, var.name)
    if isinstance(result, np.ndarray) and result.shape != out.shape:
        ctx.fail(f"internal: constant result {list(result.shape)} differs from {list(out.shape)}")
    return result
