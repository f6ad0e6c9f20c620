"""The cost model of the order search: bytes live after any set of executed nodes, and while a node runs.

It counts exactly what `buffers.build_buffers` (views=False: slices and concatenations as copies) +
`buffers.lower_bound` would give for a complete order, but step by step, so that orders can be compared while
they are built:

1. Units. Tensors joined by alias ops (reshape) share bytes whatever the order: they form one unit, sized
   like a buffer (largest member rounded up to ALIGN). A unit is created by the node that writes its first
   tensor, or exists from the start when that tensor is a graph input. Its readers are every node that reads
   one of its members (alias nodes included); it is pinned when a member is a graph output.
2. After a set S of nodes has run (S closed under dependencies), a unit is live iff it was created by S (or
   is a graph input) and it is pinned or has a reader outside S. So the live bytes depend on S only, not on
   the order that ran S: the search can merge all orders that reach the same S.
3. While node v runs after S: the live bytes of S, plus the units v creates, plus its scratch, plus (at the
   first step only) graph inputs nobody reads. An in-place node whose input 0 unit dies at v (no reader
   outside S + v, not pinned, same bytes and elements, no other input in it) writes over it: its output
   unit costs nothing extra at that step, and after the step one unit has replaced the other, so the count
   is the same.
   A node with an overlap delta d (buffers.py step 4) whose input 0 unit dies at v likewise (no reader
   outside S + v, not pinned, no other input in it) may write its output unit over that unit's dead part:
   while it runs, min(output + d, input) bytes fewer (buffers.pair_saving).
4. After v: the live bytes of S, plus the units v creates, minus every unit v reads or creates that has no
   reader outside S + v and is not pinned.
A node's dependencies are the producers of its inputs and, for reads and assigns of state tensors, the
order Graph.state_order gives; states, like constants, are not arena bytes.
Sets of nodes are Python ints used as bit masks (bit i = node i).
"""

from __future__ import annotations

from ...ir.graph import Graph
from ...ir.registry import get_op
from ..buffers import ALIGN, SCRATCH_ALIGN, align_up, node_overlap


class LiveBytes:
    """Per-node costs of a graph for the order search (see the module docstring)."""

    def __init__(self, graph: Graph, scratch: dict[int, int], overlap: dict[int, int] | None = None):
        overlap = node_overlap(graph) if overlap is None else overlap  # graph: lowered by default
        self.graph = graph
        self.n = len(graph.nodes)
        producer = graph.producers()
        const = {name for name, t in graph.tensors.items()  # not in the arena
                 if t.is_constant or t.is_state or t.stored_in}
        state_order = graph.state_order()
        root: dict[str, str] = {}
        for node in graph.nodes:  # the node list is topological: a unit's first tensor is seen first
            for name in node.inputs:
                if name and name not in const:
                    root.setdefault(name, name)
            for name in node.outputs:
                if name not in const:
                    root.setdefault(name, name)
            src = node.inputs[0] if node.inputs else ""
            if get_op(node.op).alias and src and src not in const and node.outputs and node.outputs[0] not in const:
                root[node.outputs[0]] = root[src]
        for name in graph.inputs + graph.outputs:
            if name not in const:
                root.setdefault(name, name)
        self.unit_of: dict[str, int] = {}
        roots: list[str] = []
        for name in sorted(root, key=lambda n: (root[n] != n, n)):  # roots first, then members
            if root[name] == name:
                self.unit_of[name] = len(roots)
                roots.append(name)
        for name, r in root.items():
            self.unit_of[name] = self.unit_of[r]
        units = len(roots)
        raw = [0] * units
        self.readers = [0] * units
        self.pinned = [False] * units
        for name, u in self.unit_of.items():
            raw[u] = max(raw[u], graph.type_of(name).nbytes)
            self.pinned[u] |= name in graph.outputs
        self.size = [align_up(r, ALIGN) for r in raw]
        creator = [producer.get(r, -1) for r in roots]
        self.deps = [0] * self.n
        self.dep_list: list[tuple[int, ...]] = []  # the producers each node reads from, lowest first
        self.reads: list[tuple[int, ...]] = []
        self.creates: list[tuple[int, ...]] = []
        self.new_bytes = [0] * self.n
        self.inplace: list[tuple[int, int] | None] = [None] * self.n
        self.lagged: list[tuple[int, int] | None] = [None] * self.n  # (input unit, bytes saved)
        for v, node in enumerate(graph.nodes):
            read = sorted({self.unit_of[n] for n in node.inputs if n and n not in const})
            for u in read:
                self.readers[u] |= 1 << v
            before = {producer[name] for name in node.inputs if name in producer} | state_order.get(v, set())
            for d in before:
                self.deps[v] |= 1 << d
            self.dep_list.append(tuple(sorted(before)))
            self.reads.append(tuple(read))
            made = tuple(sorted({u for u in (self.unit_of[o] for o in node.outputs if o not in const)
                                 if creator[u] == v}))
            self.creates.append(made)
            self.new_bytes[v] = sum(self.size[u] for u in made) + align_up(scratch.get(v, 0), SCRATCH_ALIGN)
            src = node.inputs[0] if node.inputs else ""
            if get_op(node.op).inplace and src and src not in const and node.outputs and node.outputs[0] not in const:
                u0, uo = self.unit_of[src], self.unit_of[node.outputs[0]]
                others = {self.unit_of[n] for n in node.inputs[1:] if n and n not in const}
                same = raw[u0] == raw[uo] and graph.type_of(src).size == graph.type_of(node.outputs[0]).size
                if u0 != uo and uo in made and same and u0 not in others:
                    self.inplace[v] = (u0, uo)
            if v in overlap and self.inplace[v] is None and src and src not in const and node.outputs \
                    and node.outputs[0] not in const:
                u0, uo = self.unit_of[src], self.unit_of[node.outputs[0]]
                others = {self.unit_of[n] for n in node.inputs[1:] if n and n not in const}
                if u0 != uo and uo in made and u0 not in others:
                    self.lagged[v] = (u0, max(0, min(self.size[uo] + overlap[v], self.size[u0])))
        self.successors: list[list[int]] = [[] for _ in range(self.n)]  # readers of each node's outputs
        for v, deps in enumerate(self.dep_list):
            for d in deps:
                self.successors[d].append(v)
        inputs = [u for u in range(units) if creator[u] == -1]
        self.initial = sum(self.size[u] for u in inputs if self.readers[u] or self.pinned[u])
        self.unread_inputs = sum(self.size[u] for u in inputs if not (self.readers[u] or self.pinned[u]))

    def ready(self, done: int) -> list[int]:
        """Nodes not in `done` whose dependencies all are, in model order."""
        return [v for v in range(self.n) if not done >> v & 1 and not self.deps[v] & ~done]

    def ready_after(self, ready: list[int], done: int, v: int) -> list[int]:
        """ready(done | 1 << v) from ready(done), looking only at the nodes that read v: the same list without
        scanning every node (v was ready, so only its successors can become ready)."""
        after = done | 1 << v
        new = [w for w in self.successors[v] if not after >> w & 1 and not self.deps[w] & ~after]
        if not new:
            return [w for w in ready if w != v]
        return sorted(set(w for w in ready if w != v).union(new))

    def _dies(self, u: int, after: int) -> bool:
        return not self.pinned[u] and not self.readers[u] & ~after

    def step(self, done: int, v: int, live: int) -> tuple[int, int]:
        """(bytes live while v runs, bytes live after it), given `live` bytes after the set `done`."""
        after = done | 1 << v
        during = live + self.new_bytes[v] + (self.unread_inputs if not done else 0)
        pair = self.inplace[v]
        if pair is not None and self._dies(pair[0], after):
            during -= self.size[pair[1]]
        lagged = self.lagged[v]
        if lagged is not None and self._dies(lagged[0], after):
            during -= lagged[1]
        remaining = live
        for u in self.creates[v]:
            remaining += self.size[u]
        for u in self.reads[v] + self.creates[v]:
            if self._dies(u, after):
                remaining -= self.size[u]
        return during, remaining

    def peak(self, order: tuple[int, ...]) -> int:
        """The largest bytes live at one step when running `order`."""
        done, live, peak = 0, self.initial, 0
        for v in order:
            during, live = self.step(done, v, live)
            peak = max(peak, during)
            done |= 1 << v
        return peak
