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
Between steps 4 and 5, patches (patch_levels): the runs the arena peaks at take patch grids (rows.patches)
down to a level every step reaches for the least cost, recomputing at most max_recompute percent of the model's
multiply-accumulates in all (10 by default): with a RAM budget the highest level within it, without one the
lowest whose share of the arena saved is at least its share of the instructions added. Patch rows let a run's
output overwrite input rows earlier patches have finished with, patch columns make its rolling buffers narrow:
MobileNetV2's 224x224 head is the case.
The room search (plan/room.py) then widens a run's band (rows made a step: fewer kernel calls, each with its own
setup) where the arena has the bytes. With a RAM budget, a layer-by-layer arena within it is kept (it runs
fastest) and one over it takes the smallest arena, whatever it costs: the budget is the constraint the firmware
must meet.
In one patch every value is computed once: row by row costs no extra multiply-accumulates, only a kernel call
per row and layer and the moves of the rows a rolling buffer keeps; patches add their halo.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import CompileError
from ..ir.graph import Graph, Node
from ..kernels.registry import kernels_for
from ..lower import Lowered, LoweredNode
from ..plan.buffers import ALIGN
from ..ir.registry import get_op
from ..ops.fused_rows import FusedRows
from . import rows

WINDOW_OPS = frozenset({"nn.conv2d", "nn.depthwise_conv2d"})
MAX_STAGES = 32  # MR_ROWS_MAX_STAGES, crt/include/micro_relay/rows.h (tests/schedule checks it)
MAX_SEGMENT = 16  # the longest run split_chain weighs (its cost grows with the square of the length)
MAX_TRIALS = 32  # the plans step 5 makes at most
GRID_PARTS = (1, 2, 4, 8, 16)  # the rows (columns) a patch grid cuts the last layer's output into
MAX_RECOMPUTE = 10.0  # percent of the model's multiply-accumulates patches may compute twice, by default


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


def _fused_node(lowered: Lowered, chain: tuple[int, ...], graph: Graph, band: int = 1,
                grid: tuple[int, int] = (1, 1)) -> LoweredNode:
    """The fused.rows node of one chain making `band` rows of its last layer a step in each patch of `grid`
    (kernel options: the room search widens the band of a node planned with neither where the arena has the
    bytes), planned by its kernel on `graph`."""
    (kernel,) = kernels_for(FusedRows.name, ("portable",))
    layers = tuple(lowered.nodes[i] for i in chain)
    constants = []
    for m in layers:
        constants += [n for n in m.node.inputs[1:] if n and n not in constants]
    node = Node(FusedRows.name, (layers[0].node.inputs[0], *constants), (layers[-1].node.outputs[0],),
                {"members": tuple(m.node for m in layers)}, name=" + ".join(m.node.name or m.node.op for m in layers))
    params = {"layers": layers}
    options = {**({"band": band} if band > 1 else {}), **({"patches": grid} if grid != (1, 1) else {})}
    return LoweredNode(node, params, kernel, kernel.plan(lowered.target, graph, node, params,
                                                         {**kernel.options, **options}), options)


def fused(lowered: Lowered, chains: list[tuple[int, ...]], bands: dict | None = None,
          grids: dict | None = None) -> Lowered:
    """Step 3: the lowering with each chain one fused.rows node at its first layer's place; bands: chain -> rows
    its last layer makes a step (default 1); grids: chain -> its patch grid (default one patch)."""
    graph = lowered.graph
    bands, grids = bands or {}, grids or {}
    first_of = {chain[0]: chain for chain in chains}
    inside = {i for chain in chains for i in chain}
    nodes = [_fused_node(lowered, first_of[i], graph, bands.get(first_of[i], 1), grids.get(first_of[i], (1, 1)))
             if i in first_of else low
             for i, low in enumerate(lowered.nodes) if i in first_of or i not in inside]
    new_graph = Graph(graph.tensors, tuple(n.node for n in nodes), graph.inputs, graph.outputs)
    return replace(lowered, graph=new_graph, nodes=tuple(nodes))


def _step_bytes(lowered: Lowered, segment: tuple[int, ...], consumers: dict, grid: tuple[int, int] = (1, 1),
                low: LoweredNode | None = None) -> int:
    """What running `segment` as one step needs at least: its input and output, sharing what the overlap its
    order allows (as plan/buffers.py lower_bound counts a permitted pair), and its scratch; `low`: its node,
    when made already."""
    graph = lowered.graph
    if low is None:
        low = lowered.nodes[segment[0]] if len(segment) == 1 else _fused_node(lowered, segment, graph, grid=grid)
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


def grids_of(lowered: Lowered, run: tuple[int, ...]) -> list[tuple[int, int]]:
    """The patch grids a run may take: GRID_PARTS rows and columns, no more than its last layer's output has, and
    one column patch only when some layer has an output column reading no image column (rows.column_refusal)."""
    chain = tuple(lowered.nodes[i].params["geometry"] for i in run)
    narrow = all(rows.column_refusal(g) is None for g in chain)
    return [(r, c) for r in GRID_PARTS for c in GRID_PARTS
            if r <= chain[-1].out_h and c <= chain[-1].out_w and (c == 1 or narrow)]


def model_macs(lowered: Lowered) -> int:
    graph = lowered.graph
    return sum(get_op(n.op).macs(graph, n) for n in graph.nodes)


@dataclass(frozen=True)
class _GridOption:
    step: int  # the bytes the run's step needs in this grid (_step_bytes)
    macs: int  # the multiply-accumulates its halo recomputes
    instructions: int | None  # the cost model's instructions of the run in it (None: no cost model)
    grid: tuple[int, int]


def _grid_options(lowered: Lowered, run: tuple[int, ...], consumers: dict) -> list[_GridOption]:
    chain = tuple(lowered.nodes[i].params["geometry"] for i in run)
    found = []
    for g in grids_of(lowered, run):
        low = _fused_node(lowered, run, lowered.graph, grid=g)
        found.append(_GridOption(_step_bytes(lowered, run, consumers, g, low), rows.recompute_macs(chain, g),
                                 estimated_instructions(lowered, low), g))
    return found


def patch_levels(lowered: Lowered, runs: list[tuple[int, ...]], planners, allowance: int,
                 fits: int | None = None) -> dict:
    """Patch grids for the runs the arena peaks at (run -> grid, for the runs given one), by levels:
      1. plan the runs in one patch each: the bytes live at each run's step are its own step's and the others'
         (tensors live across it, such as a residual's input), which no grid of it changes; the steps that are
         not runs set the floor no grid goes below;
      2. a level L is reached when every run above it takes a grid whose step, with the others, is at most L:
         for each such run the one that costs least (the cost model's instructions; the recomputed MACs where
         the target has no cost model), and all together recompute at most `allowance` MACs;
      3. with a RAM budget (`fits`), the highest level within it (the fewest patches that fit), else the lowest
         level reached; without, the lowest level whose share of the one-patch arena saved is at least its
         share of the model's cost added (step 6's rule, for the patches).
    Levels are the steps the runs' grids make; the plan of the chosen grids is checked by the caller."""
    from ..plan.buffers import live_bytes
    from ..plan.memory_plan import plan_memory

    consumers = lowered.graph.consumers()
    base = fused(lowered, runs)
    plan = plan_memory(base, planners)
    live = live_bytes(list(plan.buffers))
    arena = max(live, default=0)
    run_of = {id(lowered.nodes[r[0]].node): r for r in runs}  # by identity: ONNX nodes may share a name
    at = {}  # run -> the bytes live at its step
    floor = 0
    for step, index in enumerate(plan.order):
        node = base.nodes[index].node
        run = run_of.get(id(node.attrs["members"][0])) if node.op == FusedRows.name else None
        if run is None:
            floor = max(floor, live[step])
        else:
            at[run] = max(at.get(run, 0), live[step])
    heavy = {run: _grid_options(lowered, run, consumers) for run, v in at.items() if v > floor}
    if not heavy or (fits is not None and arena <= fits):
        return {}
    one = {run: next(o for o in options if o.grid == (1, 1)) for run, options in heavy.items()}
    by_instructions = all(o.instructions is not None for options in heavy.values() for o in options)
    total = model_instructions(lowered) if by_instructions else model_macs(lowered)

    def cost(o: _GridOption, run) -> int:
        return o.instructions - one[run].instructions if by_instructions else o.macs

    levels = sorted({at[run] - one[run].step + o.step for run, options in heavy.items() for o in options
                     if floor <= at[run] - one[run].step + o.step < arena}, reverse=True)
    reached = []  # (level, grids, cost)
    for level in levels:
        grids, added, macs = {}, 0, 0
        for run, options in heavy.items():
            if at[run] <= level:
                continue
            fitting = [o for o in options if at[run] - one[run].step + o.step <= level]
            if not fitting:
                break
            pick = min(fitting, key=lambda o: (cost(o, run), o.step))
            grids[run], added, macs = pick.grid, added + cost(pick, run), macs + pick.macs
        else:
            if macs <= allowance:
                reached.append((level, grids, added))
                continue
        break  # a lower level needs at least these grids: none is reached either
    if fits is not None:
        within = [r for r in reached if r[0] <= fits]
        chosen = within[0] if within else (reached[-1] if reached else None)
    else:
        worth = [r for r in reached if total and (arena - r[0]) / arena >= r[2] / total]
        chosen = worth[-1] if worth else None
    return {} if chosen is None else {run: g for run, g in chosen[1].items() if g != (1, 1)}


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
    grids: tuple[tuple[tuple[int, ...], tuple[int, int]], ...] = ()  # (run, patch grid) of the patched runs
    recompute_macs: int = 0  # the multiply-accumulates the grids compute twice
    model_macs: int = 0


def estimated_instructions(lowered: Lowered, low: LoweredNode) -> int | None:
    """The cost model's instructions of one lowered node, None where the target has no model for it."""
    found = low.kernel.estimate(lowered.target, lowered.graph, low.node, low.params, low.plan)
    return None if found is None else int(found["instructions"])


def extra_instructions(lowered: Lowered, run: tuple[int, ...], grid: tuple[int, int] = (1, 1)) -> int | None:
    """The cost model's instructions a run adds (None where the target has no cost model): the fused node's
    estimate (each layer's kernel called once per row of each patch on a geometry cut to it) against its layers'
    estimates layer by layer: each call's setup, and the halo a patch grid computes twice."""
    fused_estimate = estimated_instructions(lowered, _fused_node(lowered, run, lowered.graph, grid=grid))
    layers = [estimated_instructions(lowered, lowered.nodes[i]) for i in run]
    if fused_estimate is None or None in layers:
        return None
    return max(fused_estimate - sum(layers), 0)


def model_instructions(lowered: Lowered) -> int | None:
    """The cost model's instructions of the model layer by layer: the layers it has a model for (the
    convolutions and dense layers, nearly all of the time), None where it has none."""
    counts = [c for c in (estimated_instructions(lowered, low) for low in lowered.nodes) if c is not None]
    return sum(counts) if counts else None


def fuse_rows(lowered: Lowered, planners: tuple[str, ...] | None = None, mode: str = "auto",
              ram_budget: int | None = None, max_recompute: float = MAX_RECOMPUTE,
              patches: tuple[int, int] | None = None) -> tuple[Lowered, RowsChoice]:
    """Steps 3 to 6 ("auto"): the fused lowering when it is worth it (below), else `lowered` itself; "always":
    every chain one fused.rows node (MAX_STAGES layers at most) with its widest band, or in the grid `patches`
    (rows x columns, as far as each chain's output and columns allow) when given; "never": `lowered`.
    ram_budget: the RAM the model may take (arena and state); a layer-by-layer arena within it is kept (it
    runs fastest), one over it takes the smallest arena whatever its instructions. max_recompute: the percent of
    the model's multiply-accumulates patch grids may compute twice."""
    from ..plan.memory_plan import plan_memory

    if mode not in ROW_BY_ROW:
        raise CompileError(f"unknown row-by-row mode '{mode}' (choose from {', '.join(ROW_BY_ROW)})", "--row-by-row")
    if not (0 <= max_recompute <= 1000):  # NaN fails both
        raise CompileError(f"--max-recompute {max_recompute} is not a percent from 0 to 1000", "--max-recompute")
    if mode == "never":
        return lowered, RowsChoice(why="--row-by-row never")
    chains = find_chains(lowered)
    if mode == "always":
        bands = {c: rows.band_of(tuple(lowered.nodes[i].params["geometry"] for i in c)) for c in chains}
        grids = {}
        if patches is not None:
            for c in chains:
                allowed = grids_of(lowered, c)
                grids[c] = max((g for g in allowed if g[0] <= patches[0] and g[1] <= patches[1]), default=(1, 1))
            bands = {}
        return fused(lowered, chains, bands, grids), RowsChoice(tuple(chains), why="--row-by-row always")
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
    total_macs = model_macs(lowered)
    grids = patch_levels(lowered, runs, planners, int(total_macs * max_recompute / 100),
                        None if ram_budget is None else ram_budget - state)
    if grids:
        patched = plan_memory(fused(lowered, runs, grids=grids), planners).arena_bytes
        if patched < arena:
            arena = patched
        else:
            grids = {}
    trials = MAX_TRIALS
    for run in sorted(runs, key=len):  # step 5: a run the arena does not need runs layer by layer
        if trials == 0:
            break
        trials -= 1
        fewer = [r for r in runs if r != run]
        size = plan_memory(fused(lowered, fewer, grids=grids), planners).arena_bytes
        if size <= arena:
            runs, arena = fewer, size
            grids.pop(run, None)
    extras = [extra_instructions(lowered, run, grids.get(run, (1, 1))) for run in runs]
    extra = None if None in extras else sum(extras)
    total = model_instructions(lowered)
    recomputed = sum(rows.recompute_macs(tuple(lowered.nodes[i].params["geometry"] for i in run), g)
                     for run, g in grids.items())
    choice = RowsChoice(tuple(runs), whole, arena, extra, total, grids=tuple(sorted(grids.items())),
                        recompute_macs=recomputed, model_macs=total_macs)
    if ram_budget is None and extra is not None and total and extra / total > (whole - arena) / whole:
        return lowered, replace(choice, runs=(), grids=(), recompute_macs=0, why=(
            f"row by row would save {100 * (whole - arena) / whole:.1f}% of the arena for "
            f"{100 * extra / total:.1f}% more instructions"))  # step 6
    return fused(lowered, runs, grids=grids), replace(choice, why="the smallest arena")
