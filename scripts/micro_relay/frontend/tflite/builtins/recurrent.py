"""Recurrent operators: UNIDIRECTIONAL_SEQUENCE_LSTM.

The LSTM keeps its hidden and cell states in variable tensors (inputs 18 and 19): tensors with no data that
no operator writes and that are not graph inputs. Each becomes a state tensor (ir/graph.py) unless the reader
made it one already, starting from what TFLite Micro gives variables before the first invoke and after a
reset: int8 ones hold their zero point, others zeros (MicroInterpreterGraph::ResetTensorData). The operator
becomes nn.lstm, which writes the new states as two more outputs, and an assign of each into its state, so
the next invoke starts where this one ended.
"""

from __future__ import annotations

import numpy as np
import tflite
from tflite.ActivationFunctionType import ActivationFunctionType as Act
from tflite.BuiltinOperator import BuiltinOperator as B

from ....ir.graph import Tensor, fresh_name
from ....ir.types import DType
from .context import converts, make_node

_H_STATE, _C_STATE = 18, 19


def _state(ctx, name: str, what: str) -> tuple[str, bool]:
    """The state input as nn.lstm reads it, and whether it is a state tensor (then it gets an assign); a
    constant (a model that fixed the state) stays a constant."""
    if not name:
        ctx.fail(f"LSTM {what} state (input {_H_STATE if what == 'hidden' else _C_STATE}) is absent")
    tensor = ctx.tensors[name]
    if tensor.is_constant:
        return name, False
    if not tensor.is_state:
        t = tensor.type
        fill = t.quant.zero_point if t.dtype == DType.INT8 and t.quant is not None else 0
        ctx.tensors[name] = Tensor(name, t, initial=np.full(t.shape, fill, t.dtype.numpy))
    return name, True


@converts(B.UNIDIRECTIONAL_SEQUENCE_LSTM)
def unidirectional_sequence_lstm(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 24)
    if len(outputs) != 1:
        ctx.fail(f"LSTM has {len(outputs)} outputs, TFLite Micro's kernel takes 1")
    o = ctx.options(op, tflite.UnidirectionalSequenceLSTMOptions, required=True)
    if o.FusedActivationFunction() != Act.TANH:
        ctx.fail(f"LSTM cell activation {o.FusedActivationFunction()} is not supported (TFLite Micro runs TANH)")
    if o.AsymmetricQuantizeInputs() or o.DiagonalRecurrentTensors():
        ctx.fail("hybrid or diagonal-recurrent LSTM is not supported by TFLite Micro")
    clip = float(o.CellClip())
    if not np.isfinite(clip) or clip < 0:
        ctx.fail(f"LSTM cell clip {clip} must be finite and not negative")
    h, h_is_state = _state(ctx, inputs[_H_STATE], "hidden")
    c, c_is_state = _state(ctx, inputs[_C_STATE], "cell")
    h_new = fresh_name(ctx.tensors, f"{outputs[0]}/h")
    ctx.tensors[h_new] = Tensor(h_new, ctx.tensors[h].type)
    c_new = fresh_name(ctx.tensors, f"{outputs[0]}/c")
    ctx.tensors[c_new] = Tensor(c_new, ctx.tensors[c].type)
    nodes = [make_node(ctx, "nn.lstm", inputs, [outputs[0], h_new, c_new], time_major=bool(o.TimeMajor()),
                       cell_clip=clip)]
    nodes += [make_node(ctx, "assign", [state, new], []) for state, new, is_state
              in ((h, h_new, h_is_state), (c, c_new, c_is_state)) if is_state]
    return nodes
