"""A node's prepared kernel parameters (OpDef.prepare), computed once per node and kept on it.

Planning asks for them many times per node (scratch, overlap, the room search's estimates, the report, the
emitter), and preparing a convolution requantizes every channel. An op prepares a node from the node, its
tensors and the kernel backend only (ops/ never look at other nodes), so the result is kept on the node
object with the backend and the very tensor objects it read, and is given again while all of them are the
same: a graph that replaces a tensor, or a node with other attributes (a new object), is prepared afresh.
Callers must not change what they get (the ops only build their parameters inside prepare).
"""

from __future__ import annotations

from ..ir.graph import Graph, Node
from ..ir.registry import get_op
from ..ops._cmsis_nn import active_backend

_SLOT = "_prepared"


def prepared(graph: Graph, node: Node) -> dict:
    """get_op(node.op).prepare(graph, node), from the node's memo when its inputs are the same objects."""
    key = (active_backend(), tuple(graph.tensors.get(name) for name in node.inputs + node.outputs))
    memo = node.__dict__.get(_SLOT)
    if memo is not None and memo[0][0] == key[0] and len(memo[0][1]) == len(key[1]) \
            and all(a is b for a, b in zip(memo[0][1], key[1])):
        return memo[1]
    params = get_op(node.op).prepare(graph, node)
    object.__setattr__(node, _SLOT, (key, params))
    return params
