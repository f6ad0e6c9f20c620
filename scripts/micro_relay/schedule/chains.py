"""Which layers run row by row: chains of window layers whose tensors in between never exist whole.

fuse_rows(lowered, planners):
  1. a layer can be cut to rows when it is an nn.conv2d or nn.depthwise_conv2d of one image whose every output
     row reads some image row (rows.row_by_row_refusal), its other inputs are constants, and its kernel is one of
     ours (CMSIS-NN's functions take whole tensors);
  2. layer B follows layer A in a chain when B reads A's output as its input, nothing else reads it, it is not a
     graph output or a state's, and both have one element type; chains are the longest such runs, split every
     MR_ROWS_MAX_STAGES layers (micro_relay/rows.h);
  3. each chain is cut into runs (split_chain): the cut whose largest step needs the fewest bytes (a step's input
     and output, sharing what its overlap allows, and its scratch: rolling buffers and kernel scratch), and of
     those the one with the fewest layers in runs of two or more; each such run becomes one fused.rows node
     (ops/fused_rows.py) at its first layer's place, planned by its kernel (kernels/portable/fused_rows.py);
  4. the fused graph is kept only when its planned arena is smaller than the layer-by-layer one: no model's
     arena grows, and a model that gains nothing keeps its layer-by-layer code;
  5. then each run, shortest first, runs layer by layer again when the arena does not grow without it (a run
     off the peak only costs instructions);
  6. where the target has a cost model, the runs are kept only when the share of the arena they save is at
     least the share of instructions they add (extra_instructions): 8% of the arena is not worth 3x the time.
The room search (plan/room.py) then widens a run's band (rows made a step: fewer kernel calls, each with its own
setup) where the arena has the bytes. With a RAM budget, a layer-by-layer arena within it is kept (it runs
fastest) and one over it takes the smallest arena, whatever it costs: the budget is the constraint the firmware
must meet.
Every value is computed once either way: row by row costs no extra multiply-accumulates, only a kernel call per
row and layer and the moves of the rows a rolling buffer keeps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import CompileError
from ..ir.graph import Graph, Node
from ..kernels.registry import kernels_for
from ..lower import Lowered, LoweredNode
from ..plan.buffers import ALIGN
from ..ops.fused_rows import FusedRows
from . import rows

WINDOW_OPS = frozenset({"nn.conv2d", "nn.depthwise_conv2d"})
MAX_STAGES = 32  # MR_ROWS_MAX_STAGES, crt/include/micro_relay/rows.h (tests/schedule checks it)
MAX_SEGMENT = 16  # the longest run split_chain weighs (its cost grows with the square of the length)
MAX_TRIALS = 32  # the plans step 5 makes at most


def layer_refusal(lowered: Lowered, index: int) -> str | None:
    """Why node `index` cannot be a layer of a chain (step 1), None when it can."""
    low, graph = lowered.nodes[index], lowered.graph
    node = low.node
    if node.op not in WINDOW_OPS or "geometry" not in low.params:
        return f"{node.op} is not a convolution"
    if low.kernel.backend == "cmsis_nn":
        return "CMSIS-NN runs whole tensors"
    if any(n and not graph.tensors[n].is_constant for n in node.inputs[1:]):
        return "weights computed at run time"
    return rows.row_by_row_refusal(low.params["geometry"])


def _follows(lowered: Lowered, a: int, b: int, consumers: dict) -> bool:
    """Step 2: whether layer b can read layer a's output row by row."""
    graph = lowered.graph
    out = graph.nodes[a].outputs[0]
    t = graph.tensors[out]
    dtypes = {graph.type_of(graph.nodes[a].inputs[0]).dtype, t.type.dtype,
              graph.type_of(graph.nodes[b].outputs[0]).dtype}
    return (graph.nodes[b].inputs[0] == out and consumers[out] == [b] and out not in graph.outputs
            and not (t.is_state or t.stored_in) and len(dtypes) == 1)


def find_chains(lowered: Lowered) -> list[tuple[int, ...]]:
    """Steps 1 and 2: the node indices of every chain of two or more layers, in graph order."""
    graph = lowered.graph
    able = {i for i in range(len(graph.nodes)) if layer_refusal(lowered, i) is None}
    consumers = graph.consumers()
    producers = graph.producers()
    nxt = {}
    for b in able:
        a = producers.get(graph.nodes[b].inputs[0])
        if a in able and _follows(lowered, a, b, consumers):
            nxt[a] = b
    heads = sorted(set(nxt) - set(nxt.values()))
    chains = []
    for head in heads:
        chain = [head]
        while chain[-1] in nxt:
            chain.append(nxt[chain[-1]])
        for start in range(0, len(chain), MAX_STAGES):
            part = tuple(chain[start:start + MAX_STAGES])
            if len(part) > 1:
                chains.append(part)
    return chains


def _fused_node(lowered: Lowered, chain: tuple[int, ...], graph: Graph, band: int = 1) -> LoweredNode:
    """The fused.rows node of one chain making `band` rows of its last layer a step (a kernel option: the
    room search widens the band of a node planned with none where the arena has the bytes), planned by its
    kernel on `graph`."""
    (kernel,) = kernels_for(FusedRows.name, ("portable",))
    layers = tuple(lowered.nodes[i] for i in chain)
    constants = []
    for m in layers:
        constants += [n for n in m.node.inputs[1:] if n and n not in constants]
    node = Node(FusedRows.name, (layers[0].node.inputs[0], *constants), (layers[-1].node.outputs[0],),
                {"members": tuple(m.node for m in layers)}, name=" + ".join(m.node.name or m.node.op for m in layers))
    params = {"layers": layers}
    options = {"band": band} if band > 1 else {}
    return LoweredNode(node, params, kernel, kernel.plan(lowered.target, graph, node, params,
                                                         {**kernel.options, **options}), options)


def fused(lowered: Lowered, chains: list[tuple[int, ...]], bands: dict | None = None) -> Lowered:
    """Step 3: the lowering with each chain one fused.rows node at its first layer's place; bands: chain -> rows
    its last layer makes a step (default 1)."""
    graph = lowered.graph
    bands = bands or {}
    first_of = {chain[0]: chain for chain in chains}
    inside = {i for chain in chains for i in chain}
    nodes = [_fused_node(lowered, first_of[i], graph, bands.get(first_of[i], 1)) if i in first_of else low
             for i, low in enumerate(lowered.nodes) if i in first_of or i not in inside]
    new_graph = Graph(graph.tensors, tuple(n.node for n in nodes), graph.inputs, graph.outputs)
    return replace(lowered, graph=new_graph, nodes=tuple(nodes))


def _step_bytes(lowered: Lowered, segment: tuple[int, ...], consumers: dict) -> int:
    """What running `segment` as one step needs at least: its input and output, sharing what the overlap its
    order allows (as plan/buffers.py lower_bound counts a permitted pair), and its scratch."""
    graph = lowered.graph
    low = lowered.nodes[segment[0]] if len(segment) == 1 else _fused_node(lowered, segment, graph)
    src, dst = lowered.nodes[segment[0]].node.inputs[0], lowered.nodes[segment[-1]].node.outputs[0]
    in_bytes, out_bytes = graph.type_of(src).nbytes, graph.type_of(dst).nbytes
    delta = low.plan.overlap_delta
    if delta is not None and consumers[src] == [segment[0]] and src not in graph.outputs:
        pair = max(out_bytes, in_bytes - (delta // ALIGN) * ALIGN)
    else:
        pair = in_bytes + out_bytes
    return pair + low.plan.scratch_bytes


def split_chain(lowered: Lowered, chain: tuple[int, ...], consumers: dict) -> list[tuple[int, ...]]:
    """The chain cut into runs of at most MAX_SEGMENT layers that make the largest step smallest, and with that
    as few layers run row by row as possible (each run of two or more becomes a fused.rows node):
      best[j] = min over i < j of max(best[i], step(chain[i:j])), then
      fewest[j] = min over i < j with step(chain[i:j]) <= best[len] of fewest[i] + (j - i if j - i > 1 else 0)."""
    m = len(chain)
    cost = {(i, j): _step_bytes(lowered, chain[i:j], consumers)
            for i in range(m) for j in range(i + 1, min(m, i + MAX_SEGMENT) + 1)}
    best = [0] + [None] * m
    for j in range(1, m + 1):
        best[j] = min(max(best[i], cost[(i, j)]) for i in range(max(0, j - MAX_SEGMENT), j))
    bound = best[m]
    fewest, cut = [0] + [None] * m, [0] * (m + 1)
    for j in range(1, m + 1):
        for i in range(max(0, j - MAX_SEGMENT), j):
            if fewest[i] is None or cost[(i, j)] > bound:
                continue
            count = fewest[i] + (j - i if j - i > 1 else 0)
            if fewest[j] is None or count < fewest[j]:
                fewest[j], cut[j] = count, i
    runs, j = [], m
    while j > 0:
        runs.insert(0, chain[cut[j]:j])
        j = cut[j]
    return [run for run in runs if len(run) > 1]


ROW_BY_ROW = ("auto", "always", "never")  # compile's row_by_row, the CLI's --row-by-row


@dataclass(frozen=True)
class RowsChoice:
    """What fuse_rows decided, for the plan report: the runs made fused.rows nodes (node indices of the
    layer-by-layer graph), both arenas (None where not planned), the cost model's extra instructions of the runs
    (None without a cost model for the target) and of the whole model layer by layer, and why."""

    runs: tuple[tuple[int, ...], ...] = ()
    arena_layer_by_layer: int | None = None
    arena_row_by_row: int | None = None
    extra_instructions: int | None = None
    model_instructions: int | None = None
    why: str = ""


def _estimate(lowered: Lowered, low: LoweredNode) -> int | None:
    found = low.kernel.estimate(lowered.target, lowered.graph, low.node, low.params, low.plan)
    return None if found is None else int(found["instructions"])


def extra_instructions(lowered: Lowered, run: tuple[int, ...]) -> int | None:
    """The cost model's instructions a run adds (None where the target has no cost model): the fused node's
    estimate (each layer's kernel called once per row on a geometry cut to it) against its layers' estimates
    layer by layer. No multiply-accumulate is added; what is added is each call's setup."""
    fused_estimate = _estimate(lowered, _fused_node(lowered, run, lowered.graph))
    layers = [_estimate(lowered, lowered.nodes[i]) for i in run]
    if fused_estimate is None or None in layers:
        return None
    return max(fused_estimate - sum(layers), 0)


def model_instructions(lowered: Lowered) -> int | None:
    """The cost model's instructions of the model layer by layer: the layers it has a model for (the
    convolutions and dense layers, nearly all of the time), None where it has none."""
    counts = [c for c in (_estimate(lowered, low) for low in lowered.nodes) if c is not None]
    return sum(counts) if counts else None


def fuse_rows(lowered: Lowered, planners: tuple[str, ...] | None = None, mode: str = "auto",
              ram_budget: int | None = None) -> tuple[Lowered, RowsChoice]:
    """Steps 3 to 6 ("auto"): the fused lowering when it is worth it (below), else `lowered` itself; "always":
    every chain one fused.rows node (MAX_STAGES layers at most) with its widest band; "never": `lowered`.
    ram_budget: the RAM the model may take (arena and state); a layer-by-layer arena within it is kept (it
    runs fastest), one over it takes the smallest arena whatever its instructions."""
    from ..plan.memory_plan import plan_memory

    if mode not in ROW_BY_ROW:
        raise CompileError(f"unknown row-by-row mode '{mode}' (choose from {', '.join(ROW_BY_ROW)})", "--row-by-row")
    if mode == "never":
        return lowered, RowsChoice(why="--row-by-row never")
    chains = find_chains(lowered)
    if mode == "always":
        bands = {c: rows.band_of(tuple(lowered.nodes[i].params["geometry"] for i in c)) for c in chains}
        return fused(lowered, chains, bands), RowsChoice(tuple(chains), why="--row-by-row always")
    consumers = lowered.graph.consumers()
    runs = [run for chain in chains for run in split_chain(lowered, chain, consumers)]
    if not runs:
        return lowered, RowsChoice(why="no chain of convolutions gains from running row by row")
    whole = plan_memory(lowered, planners).arena_bytes
    state = sum(lowered.graph.type_of(n).nbytes for n in lowered.graph.states)
    if ram_budget is not None and whole + state <= ram_budget:
        return lowered, RowsChoice(arena_layer_by_layer=whole, why="the layer-by-layer arena fits the RAM budget")
    arena = plan_memory(fused(lowered, runs), planners).arena_bytes
    if arena >= whole:
        return lowered, RowsChoice(arena_layer_by_layer=whole, arena_row_by_row=arena,
                                   why="row by row makes no smaller arena")
    trials = MAX_TRIALS
    for run in sorted(runs, key=len):  # step 5: a run the arena does not need runs layer by layer
        if trials == 0:
            break
        trials -= 1
        fewer = [r for r in runs if r != run]
        size = plan_memory(fused(lowered, fewer), planners).arena_bytes
        if size <= arena:
            runs, arena = fewer, size
    extras = [extra_instructions(lowered, run) for run in runs]
    extra = None if None in extras else sum(extras)
    total = model_instructions(lowered)
    choice = RowsChoice(tuple(runs), whole, arena, extra, total)
    if ram_budget is None and extra is not None and total and extra / total > (whole - arena) / whole:
        return lowered, replace(choice, runs=(), why=(
            f"row by row would save {100 * (whole - arena) / whole:.1f}% of the arena for "
            f"{100 * extra / total:.1f}% more instructions"))  # step 6
    return fused(lowered, runs), replace(choice, why="the smallest arena")
