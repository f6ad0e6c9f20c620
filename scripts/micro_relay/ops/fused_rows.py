"""fused.rows: window layers the compiler runs row by row (schedule/chains.py makes it; no model file has it).

`members` holds the layers (nn.conv2d, nn.depthwise_conv2d nodes), each reading the one before it; the node's
inputs are the first layer's input and every layer's constants, its output the last layer's. The layers'
tensors in between stay in the graph's tensor table and are computed a few rows at a time (schedule/rows.py),
which gives every value the layer-by-layer result: the reference runs the layers one after the other.
"""

from __future__ import annotations

from ..ir.registry import Attr, OpDef, get_op, register
from ..ir.types import DType


@register
class FusedRows(OpDef):
    name = "fused.rows"
    dtypes = (DType.INT8, DType.INT16, DType.FLOAT32)
    attrs = {"members": Attr(tuple)}
    num_inputs = (1, 1 << 16)
    made_by_compiler = True

    def infer(self, graph, node):
        return [graph.type_of(node.attrs["members"][-1].outputs[0])]

    def prepare(self, graph, node):
        return {"members": tuple(get_op(m.op).prepare(graph, m) for m in node.attrs["members"])}

    def reference(self, graph, node, p, inputs):
        values = dict(zip(node.inputs, inputs))
        for member, params in zip(node.attrs["members"], p["members"]):
            outs = get_op(member.op).reference(graph, member, params, [values[n] if n else None for n in member.inputs])
            values.update(zip(member.outputs, outs))
        return [values[node.outputs[0]]]

    def macs(self, graph, node):
        return sum(get_op(m.op).macs(graph, m) for m in node.attrs["members"])


def layers(nodes):
    """The nodes with every fused.rows node replaced by its layers: what the model computes, node by node."""
    for node in nodes:
        if node.op == FusedRows.name:
            yield from node.attrs["members"]
        else:
            yield node
