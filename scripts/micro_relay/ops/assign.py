"""assign: store a value into a state tensor (TFLite ASSIGN_VARIABLE; the update of an LSTM's or SVDF's
memory, which the op writes as a new output that an assign then stores).

Inputs (state, value), no outputs: at its point of the schedule the state's storage takes the value, so a
later read of the state sees it, and so does the next invoke (ir/graph.py). Value and state have one shape
and dtype; the bytes are copied as they are (TFLite Micro's ASSIGN_VARIABLE is a memcpy, whatever the
quantization parameters say).
"""

from __future__ import annotations

from ..errors import CompileError
from ..ir.registry import OpDef, op_where, register
from ..ir.types import DType


@register
class Assign(OpDef):
    name = "assign"
    num_inputs = (2, 2)
    writes_state = True
    dtypes = tuple(DType)

    def infer(self, graph, node):
        state, value = node.inputs
        where = op_where(graph, node)
        if not graph.tensors[state].is_state:
            raise CompileError(f"assign stores into '{state}', which is not a state tensor", where)
        have, want = graph.type_of(value), graph.type_of(state)
        if have.shape != want.shape or have.dtype != want.dtype:
            raise CompileError(f"assign of {have.dtype.value}{list(have.shape)} to state '{state}' of type "
                               f"{want.dtype.value}{list(want.shape)} (value and state must have one shape "
                               "and dtype)", where)
        return []

    def reference(self, graph, node, params, inputs):
        """Nothing to return: the interpreter stores inputs[1] as the state's value (reference/)."""
        return []
