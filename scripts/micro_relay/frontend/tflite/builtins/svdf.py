"""SVDF: nn.svdf, whose activation_state input (a variable tensor, a state) it updates: the node writes the
new state as a second output and an assign stores it (variables.state_update)."""

from __future__ import annotations

from tflite.BuiltinOperator import BuiltinOperator as B
from tflite.SVDFOptions import SVDFOptions

from .context import converts, make_node
from .variables import state_update


@converts(B.SVDF)
def svdf(ctx, op, inputs, outputs):
    ctx.need_inputs(inputs, 5)
    opts = ctx.options(op, SVDFOptions, required=True)
    data, wf, wt, bias, state = inputs
    for name, what in ((data, "input"), (wf, "weights_feature"), (wt, "weights_time"), (bias, "bias"),
                       (state, "activation_state")):
        if not name:  # TFLite Micro's kernel reads the bias even when it is absent (and crashes)
            ctx.fail(f"SVDF needs its {what} input")
    if not ctx.tensors[state].is_state:
        ctx.fail("SVDF's activation_state (input 4) must be a variable tensor")
    if ctx.tensors[data].type.dtype.is_float and not ctx.tensors[wf].type.dtype.is_float:
        ctx.fail("hybrid SVDF (float input, quantized weights) is not supported")
    new_state, assign = state_update(ctx, state)
    node = make_node(ctx, "nn.svdf", (data, wf, wt, state, bias), (outputs[0], new_state), rank=int(opts.Rank()),
                     activation=ctx.activation(opts.FusedActivationFunction()))
    return [node, assign]
