"""Stateful models: resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, CALL_ONCE) and the
state updates of ops that change a variable tensor in place (SVDF, LSTM), as state tensors (ir/graph.py).

- VAR_HANDLE names a variable by (container, shared_name); its resource handle gets no IR tensor.
- ASSIGN_VARIABLE becomes `assign(state, value)`. READ_VARIABLE becomes a reshape of the state to its own
  shape: a copy at that point of the schedule, which merge_reshapes drops when no assign of the state comes
  before the copy's last reader (then readers read the state itself).
- CALL_ONCE runs an init subgraph once, before anything else of its invoke reads a variable: an init
  subgraph of VAR_HANDLE and ASSIGN_VARIABLE of constants is folded into the states' initial values; any other
  operator there is refused.
- A variable that nothing initializes starts as TFLite Micro's allocation leaves it: every byte the int8
  zero point of the value its first ASSIGN_VARIABLE stores (0 when that value is not quantized).
`state_update` is what a converter of an in-place op (SVDF, LSTM) uses: a new tensor for the updated state,
which the op writes as an extra output, and the assign that stores it.
"""

from __future__ import annotations

import numpy as np
from tflite.BuiltinOperator import BuiltinOperator as B
from tflite.CallOnceOptions import CallOnceOptions
from tflite.VarHandleOptions import VarHandleOptions

from ....ir.graph import Node, Tensor, fresh_name
from ....ir.types import TensorType
from .context import OUTPUTLESS, converts, make_node


def state_update(ctx, state: str) -> tuple[str, Node]:
    """(name of a new tensor of the state's type, the assign node storing it into the state)."""
    new = fresh_name(ctx.tensors, f"{state}_next")
    ctx.tensors[new] = Tensor(new, ctx.tensors[state].type)
    return new, make_node(ctx, "assign", (state, new), ())


class _Variables:
    """Per model: handle tensor -> variable key, key -> state tensor name, key -> initial value and how it was
    set ("init": an init subgraph's constant; "default": the allocation's fill, still open to change)."""

    def __init__(self):
        self.handles: dict[str, tuple[str, str]] = {}
        self.states: dict[tuple[str, str], str] = {}
        self.initial: dict[tuple[str, str], tuple[np.ndarray, TensorType]] = {}
        self.defaulted: set[tuple[str, str]] = set()


def _variables(ctx) -> _Variables:
    if not hasattr(ctx, "variables"):
        ctx.variables = _Variables()
    return ctx.variables


def _key(ctx, handles: dict, name: str) -> tuple[str, str]:
    if name not in handles:
        ctx.fail(f"input '{name}' is not the handle of a VAR_HANDLE before it")
    return handles[name]


def _fill(ttype: TensorType) -> np.ndarray:
    """TFLite Micro's allocation fill: memset with the int8 zero point (of a quantized value), else 0."""
    byte = np.int8(ttype.quant.zero_point if ttype.quant is not None else 0).view(np.uint8)
    return np.full(ttype.nbytes, byte, np.uint8).view(ttype.dtype.numpy).reshape(ttype.shape)


def _state(ctx, key: tuple[str, str], ttype: TensorType, assigned: bool) -> str:
    """The state tensor of variable `key`, created at its first use; every use must agree on its type."""
    v = _variables(ctx)
    name = v.states.get(key)
    if name is None:
        name = fresh_name(ctx.tensors, key[1] or "variable")
        v.states[key] = name
        if key in v.initial:
            value, init_type = v.initial[key]
            if (init_type.shape, init_type.dtype) != (ttype.shape, ttype.dtype):
                ctx.fail(f"variable '{key[1]}' is initialized as {init_type.dtype.value}{list(init_type.shape)} "
                         f"but used as {ttype.dtype.value}{list(ttype.shape)}")
        else:
            value = _fill(ttype)
            v.defaulted.add(key)  # until the first assign, whose value's zero point fills it
        ctx.tensors[name] = Tensor(name, TensorType(ttype.shape, ttype.dtype, ttype.quant), initial=value)
    have = ctx.tensors[name].type
    if (have.shape, have.dtype) != (ttype.shape, ttype.dtype):
        ctx.fail(f"variable '{key[1]}' is {have.dtype.value}{list(have.shape)}, used here as "
                 f"{ttype.dtype.value}{list(ttype.shape)}")
    if assigned and key in v.defaulted:
        v.defaulted.discard(key)
        ctx.tensors[name] = Tensor(name, have, initial=_fill(ttype))
    return name


def var_handle_key(ctx, op) -> tuple[str, str]:
    opts = ctx.options(op, VarHandleOptions, required=True)
    shared = (opts.SharedName() or b"").decode("utf-8", "replace")
    if not shared:
        ctx.fail("VAR_HANDLE has no shared_name")
    return (opts.Container() or b"").decode("utf-8", "replace"), shared


@converts(B.VAR_HANDLE)
def var_handle(ctx, op, inputs, outputs):
    _variables(ctx).handles[outputs[0]] = var_handle_key(ctx, op)
    return []


@converts(B.ASSIGN_VARIABLE)
def assign_variable(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 2)
    if not inputs[1] or inputs[1] not in ctx.tensors:
        ctx.fail("ASSIGN_VARIABLE needs a value tensor")
    key = _key(ctx, _variables(ctx).handles, inputs[0])
    state = _state(ctx, key, ctx.tensors[inputs[1]].type, assigned=True)
    return [make_node(ctx, "assign", (state, inputs[1]), ())]


@converts(B.READ_VARIABLE)
def read_variable(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 1)
    key = _key(ctx, _variables(ctx).handles, inputs[0])
    ttype = ctx.tensors[outputs[0]].type
    state = _state(ctx, key, ttype, assigned=False)
    return [make_node(ctx, "reshape", (state,), outputs[:1], newshape=tuple(ttype.shape))]


@converts(B.CALL_ONCE)
def call_once(ctx, op, inputs, outputs):
    from ..reader import _read_tensors, _unique_names  # the reader imports this package

    opts = ctx.options(op, CallOnceOptions, required=True)
    index = opts.InitSubgraphIndex()
    model = ctx.model
    if not 0 < index < model.SubgraphsLength():
        ctx.fail(f"init subgraph index {index} is outside 1..{model.SubgraphsLength() - 1}")
    subgraph = model.Subgraphs(index)
    if subgraph.OperatorsLength() > ctx.model_bytes // 4 or subgraph.TensorsLength() > ctx.model_bytes // 4:
        ctx.fail(f"corrupt init subgraph {index}: more entries than the file holds")
    names = _unique_names(subgraph)
    tensors = _read_tensors(model, subgraph, names)
    v = _variables(ctx)
    handles: dict[str, tuple[str, str]] = {}
    for k in range(subgraph.OperatorsLength()):
        sub = subgraph.Operators(k)
        code = model.OperatorCodes(sub.OpcodeIndex()) if sub.OpcodeIndex() < model.OperatorCodesLength() else None
        code = max(code.BuiltinCode(), code.DeprecatedBuiltinCode()) if code is not None else -1
        ins = [names[i] if 0 <= i < len(names) else "" for i in (sub.InputsAsNumpy() if sub.InputsLength() else [])]
        outs = [names[i] if 0 <= i < len(names) else "" for i in (sub.OutputsAsNumpy() if sub.OutputsLength() else [])]
        if code == B.VAR_HANDLE and outs:
            handles[outs[0]] = var_handle_key(ctx, sub)
        elif code == B.ASSIGN_VARIABLE and len(ins) == 2 and ins[1] in tensors and tensors[ins[1]].is_constant:
            key = _key(ctx, handles, ins[0])
            if key in v.states:
                ctx.fail(f"CALL_ONCE initializes variable '{key[1]}' after the model has used it")
            v.initial[key] = (tensors[ins[1]].data, tensors[ins[1]].type)
        else:
            ctx.fail(f"init subgraph {index} runs operator {k} (builtin {code}), which is not VAR_HANDLE or "
                     "ASSIGN_VARIABLE of a constant: only constant initial values are folded")
    return []


OUTPUTLESS.update({B.ASSIGN_VARIABLE, B.CALL_ONCE})
