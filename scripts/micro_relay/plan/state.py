"""The state storage: where each state tensor (ir/graph.py) lives between invokes.

States are not arena buffers: every one is live for the whole program, across invokes, so the arena's
lifetimes and reuse do not apply. They are laid out one after another, in tensor-table order (deterministic),
each at a multiple of its element size and of ALIGN, in one storage of `state_bytes` bytes (aligned to
STATE_ALIGN by whoever provides it: the generated C's static buffer, or the caller's).

store_states_in_place lets an op that updates a state (SVDF) write the new value straight into the state's
storage when nothing else reads the old one afterwards, instead of the arena and a copy by the assign.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.graph import Graph
from .buffers import ALIGN, align_up

STATE_ALIGN = 16


@dataclass(frozen=True)
class StatePlan:
    offsets: dict[str, int] = field(default_factory=dict)  # state tensor name -> offset in the state storage
    state_bytes: int = 0

    def __bool__(self) -> bool:
        return bool(self.offsets)


def plan_state(graph: Graph) -> StatePlan:
    offsets, end = {}, 0
    for name in graph.states:
        t = graph.type_of(name)
        end = align_up(end, max(ALIGN, t.dtype.itemsize))
        offsets[name] = end
        end += t.nbytes
    return StatePlan(offsets, align_up(end, ALIGN))


def store_states_in_place(lowered):
    """The lowering with every new state that its producer can write over the old one placed in the state's
    storage (Tensor.stored_in), so the assign after it copies nothing. An assign(S, V) qualifies when
    1. V's producer P has a kernel that computes output V correctly over its input S (KernelPlan.inplace_outputs)
       and reads S through that input only;
    2. the assign is V's only reader and V is not a graph output (its bytes change when S is next assigned);
    3. no node between P and the assign in the node list reads or assigns S: P's write then happens where the
       assign's would, and Graph.state_order makes every order keep the state's other readers before P.
    """
    from dataclasses import replace

    from ..ir.registry import get_op

    graph = lowered.graph
    producer, readers = graph.producers(), graph.consumers()
    tensors = dict(graph.tensors)
    for a, node in enumerate(graph.nodes):
        if not get_op(node.op).writes_state:
            continue
        state, value = node.inputs
        p = producer.get(value)
        if p is None or value in graph.outputs or readers[value] != [a] or tensors[value].stored_in:
            continue
        low = lowered.nodes[p]
        k = low.node.outputs.index(value)
        pairs = {(out, inp) for out, inp in low.plan.inplace_outputs}
        if not any((k, j) in pairs for j, name in enumerate(low.node.inputs) if name == state) \
                or low.node.inputs.count(state) != 1:
            continue
        if any(state in between.inputs for between in graph.nodes[p + 1:a]):
            continue
        tensors[value] = replace(tensors[value], stored_in=state)
    if all(t.stored_in == graph.tensors[n].stored_in for n, t in tensors.items()):
        return lowered
    return replace(lowered, graph=Graph(tensors, graph.nodes, graph.inputs, graph.outputs))
