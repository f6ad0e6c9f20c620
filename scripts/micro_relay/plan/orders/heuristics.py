"""Cheap operator orders: each is one pass over the graph and always a valid topological order.

model: the order the nodes have in the graph (the model file's order, kept by the frontend and passes).

memory_greedy:
  1. start with the graph inputs live and nothing run;
  2. among the ready nodes (all dependencies run), run the one that leaves the fewest bytes live after it
     (the bytes it creates minus the bytes whose last reader it is, as counted by LiveBytes); ties go to the
     fewest bytes live while it runs, then to the lowest model index;
  3. repeat until every node ran.
  It finishes a branch whose tensors it can free before starting one that only allocates.

depth_first:
  1. walk back from the graph outputs (in order), and from each node to its producers (lowest index first);
  2. emit a node once all of its producers are emitted (an iterative post-order), so the branch started
     most recently is finished before another one starts and one branch's intermediates are live at a time;
  3. nodes no graph output depends on follow in model order.
"""

from __future__ import annotations

from .live_bytes import LiveBytes


def model_order(live: LiveBytes) -> tuple[int, ...]:
    return tuple(range(live.n))


def memory_greedy(live: LiveBytes) -> tuple[int, ...]:
    done, current, order = 0, live.initial, []
    ready = live.ready(0)
    for _ in range(live.n):
        best = None
        for v in ready:
            during, after = live.step(done, v, current)
            if best is None or (after, during, v) < best:
                best = (after, during, v)
        current, v = best[0], best[2]
        order.append(v)
        ready = live.ready_after(ready, done, v)
        done |= 1 << v
    return tuple(order)


def depth_first(live: LiveBytes) -> tuple[int, ...]:
    graph = live.graph
    producer = graph.producers()
    deps = live.dep_list
    order: list[int] = []
    seen: set[int] = set()
    stack: list[tuple[int, bool]] = [(producer[n], False) for n in reversed(graph.outputs) if n in producer]
    while stack:
        index, expanded = stack.pop()
        if index in seen:
            continue
        if expanded:
            seen.add(index)
            order.append(index)
            continue
        stack.append((index, True))
        for dep in reversed(deps[index]):
            if dep not in seen:
                stack.append((dep, False))
    order += [i for i in range(live.n) if i not in seen]
    return tuple(order)
