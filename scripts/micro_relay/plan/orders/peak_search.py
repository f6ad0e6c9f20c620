"""Peak search: the operator order with the smallest peak of live bytes, found by dynamic programming over
the sets of nodes already run, exact on graphs with few branches and bounded on the others.

The live bytes after a set S of nodes depend on S only (LiveBytes, rule 2), and the peak of an order is the
largest "bytes while a node runs" along it. So the best peak to reach S is the best, over the last node v
of S, of max(best peak to reach S - v, bytes while v runs after S - v): a shortest-path problem over the
sets S that are closed under dependencies. A chain has one such set per length; every independent branch
multiplies their number by its length, so residual blocks and two-way branches stay small.

1. Upper bound: the smallest peak of the cheap orders (model, memory_greedy, depth_first). A partial order
   whose peak already exceeds it cannot win and is dropped.
2. Layer k holds the sets of k nodes, each with its best (peak, order). Start with the empty set.
3. Extend every set of layer k by every ready node v (in model order): the new peak is the larger of the
   set's peak and the bytes while v runs. For each resulting set keep the smaller (peak, order), comparing
   orders as tuples of model indices, so ties go to the order closest to the model's.
4. Bound: when a layer holds more than `width` sets, keep the `width` with the smallest (peak, bytes live,
   order); the result is then no longer proven optimal (`exact` is False). `width` shrinks with the graph so
   that a search costs at most about EXPANSION_BUDGET node extensions.
5. After n layers the one remaining set is all nodes; its order is the answer. If the bound emptied a
   layer, the best cheap order is returned instead.
"""

from __future__ import annotations

from .heuristics import depth_first, memory_greedy, model_order
from .live_bytes import LiveBytes

EXPANSION_BUDGET = 300_000
MAX_WIDTH = 512


def search_width(n: int) -> int:
    return max(4, min(MAX_WIDTH, EXPANSION_BUDGET // max(1, n * n)))


def search(live: LiveBytes, width: int | None = None) -> tuple[tuple[int, ...], int, bool]:
    """(order, its peak, whether the peak is proven the smallest over all orders)."""
    width = search_width(live.n) if width is None else width
    cheap = [fn(live) for fn in (model_order, memory_greedy, depth_first)]
    fallback = min(cheap, key=lambda o: (live.peak(o), o))
    bound = live.peak(fallback)
    layer: dict[int, tuple[int, int, tuple[int, ...]]] = {0: (0, live.initial, ())}
    ready_of = {0: live.ready(0)}  # each set's ready nodes, derived from its parent's (LiveBytes.ready_after)
    exact = True
    for _ in range(live.n):
        nxt: dict[int, tuple[int, int, tuple[int, ...]]] = {}
        parent: dict[int, tuple[int, int]] = {}
        for done, (peak, current, order) in layer.items():
            for v in ready_of[done]:
                during, after = live.step(done, v, current)
                new_peak = max(peak, during)
                if new_peak > bound:
                    continue
                key = done | 1 << v
                old = nxt.get(key)
                if old is None or (new_peak, order + (v,)) < (old[0], old[2]):
                    nxt[key] = (new_peak, after, order + (v,))
                    parent.setdefault(key, (done, v))
        if len(nxt) > width:
            exact = False
            nxt = dict(sorted(nxt.items(), key=lambda item: item[1])[:width])
        if not nxt:
            return fallback, bound, False
        ready_of = {key: live.ready_after(ready_of[parent[key][0]], *parent[key]) for key in nxt}
        layer = nxt
    peak, _, order = next(iter(layer.values()))
    return order, peak, exact


def peak_search(live: LiveBytes) -> tuple[int, ...]:
    return search(live)[0]
