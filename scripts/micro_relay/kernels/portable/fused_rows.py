"""fused.rows on every backend (crt/src/mr_rows.c): the layers' own kernels, each called on geometries cut to a
few rows, with the chain's rolling buffers and the layers' kernel scratch in one planned scratch.

Each layer keeps the kernel the lowering chose for it (portable, Arm DSP); its C call is the one that kernel
emits, inside a function generated per chain that gives it the cut geometry (`mr_rows_call`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...schedule import rows
from ..base import Kernel, KernelPlan
from ..registry import kernel

RING_ALIGN = 8  # each rolling buffer starts 8-aligned, as kernel scratch does
GEOMETRY_BYTES = 64  # sizeof(mr_conv_geometry): 16 int32_t (tests/schedule/test_rows.py's harness uses it too)
WALK_BYTES = 16  # mr_rows.c's row counters of one layer: held_lo, held_end, lo, hi


@dataclass(frozen=True)
class RowsPlan(KernelPlan):
    ring_offsets: tuple[int, ...] = ()  # per layer but the last: its rolling buffer's place in the scratch
    kernel_scratch_offset: int = 0  # where the layers' own kernel scratch starts
    chunks: tuple[int, ...] = ()  # per layer: the most rows one call of its kernel makes (schedule/rows.py)
    patches: tuple[int, int] = (1, 1)  # the grid of the last layer's output, rows x columns (rows.patches)
    walk_offset: int = 0  # the walk's row counters' place in the scratch
    geometry_offset: int = 0  # the cut geometries' place in the scratch
    stage_in_offset: int = 0  # column patches: the first layer's gathered rows
    stage_out_offset: int = 0  # column patches: the last layer's rows before they are written out
    recompute_macs: int = 0  # the multiply-accumulates the grid's halo adds (rows.recompute_macs)


def _align(n: int) -> int:
    return -(-n // RING_ALIGN) * RING_ALIGN


@kernel
class PortableFusedRows(Kernel):
    op = "fused.rows"
    backend = "portable"
    sources = ("rows",)
    # band: rows of the last layer made a step (rows.chunks_of); more make fewer, larger kernel calls for
    # larger rolling buffers, which the room search (plan/room.py) gives where the arena has the bytes;
    # patches: the grid rows x columns of the last layer's output run one patch after another (schedule/chains.py
    # chooses it where the arena needs it)
    options = {"band": 1, "patches": (1, 1)}

    def plan(self, target, graph, node, p, options):
        layers = p["layers"]  # the LoweredNode of each layer (schedule/chains.py)
        chain = tuple(m.params["geometry"] for m in layers)
        itemsize = graph.type_of(node.inputs[0]).dtype.itemsize
        chunks = rows.chunks_of(chain, options["band"])
        grid = tuple(options["patches"])
        offsets, at = [], 0
        for size in rows.ring_bytes(chain, itemsize, chunks, grid):
            offsets.append(at)
            at = _align(at + size)
        walk_offset = at  # the walk's row counters: 4 int32_t a layer, in the arena rather than on the stack
        at = _align(at + WALK_BYTES * len(chain))
        geometry_offset = at  # the cut geometries of a patch (none without patches: the layers' own are used)
        at = _align(at + (GEOMETRY_BYTES * len(chain) if grid != (1, 1) else 0))
        stage_in, stage_out = rows.stage_bytes(chain, itemsize, chunks, grid)
        stage_in_offset = at
        at = _align(at + stage_in)
        stage_out_offset = at
        at = _align(at + stage_out)
        sources = ["rows"]
        for m in layers:
            sources += [s for s in m.plan.sources if s not in sources]
        return RowsPlan(scratch_bytes=at + max(m.plan.scratch_bytes for m in layers),
                        overlap_delta=rows.overlap_delta(chain, itemsize, chunks, grid), sources=tuple(sources),
                        ring_offsets=tuple(offsets), kernel_scratch_offset=at, chunks=chunks, patches=grid,
                        walk_offset=walk_offset, geometry_offset=geometry_offset, stage_in_offset=stage_in_offset,
                        stage_out_offset=stage_out_offset, recompute_macs=rows.recompute_macs(chain, grid))

    def variants(self, target, graph, node, p, plan):
        """Bands of rows.band_of rows, then half as many, down to 2: fewer kernel calls, fastest first."""
        if plan.chunks[-1] != 1 or plan.patches != (1, 1):
            return ()
        band, bands = rows.band_of(tuple(m.params["geometry"] for m in p["layers"])), []
        while band > 1:
            bands.append({"band": band})
            band //= 2
        return tuple(bands)

    def estimate(self, target, graph, node, p, plan):
        """The cost model's instructions of every layer called once per chunk of its rows in every patch, on a
        geometry cut to the chunk (None where a layer has no cost model): the layers' work, each call's setup
        (filters extended, strips and tiles started again) and the halo the patches compute twice."""
        total, found = 0, {}
        chain = tuple(m.params["geometry"] for m in p["layers"])
        for patch in rows.patches(chain, plan.patches):
            for index, (m, g, chunk) in enumerate(zip(p["layers"], patch.chain, plan.chunks)):
                span = min(g.in_h, (chunk - 1) * g.stride_h + (g.k_h - 1) * g.dil_h + 1)
                cut = replace(g, out_h=min(chunk, g.out_h), in_h=span, pad_top=0)
                if (index, cut) not in found:
                    estimate = m.kernel.estimate(target, graph, m.node, {**m.params, "geometry": cut}, m.plan)
                    found[(index, cut)] = None if estimate is None else estimate["instructions"]
                if found[(index, cut)] is None:
                    return None
                total += -(-g.out_h // chunk) * found[(index, cut)]
        return {"instructions": total, "path": "row by row"}

    def report(self, graph, node, p, plan):
        said = []
        for m in p["layers"]:
            text = m.kernel.report(graph, m.node, m.params, m.plan)
            said.append(f"{m.node.op} ({m.kernel.backend}{': ' + text if text else ''})")
        grid = "" if plan.patches == (1, 1) else (f", in {plan.patches[0]}x{plan.patches[1]} patches "
                                                  f"({plan.recompute_macs:,} MACs recomputed)")
        return f"row by row{grid}: " + "; ".join(said)

    def emit(self, ctx, node, p, plan):
        name = ctx._fresh("rows")
        cases = []
        stages = []
        for index, m in enumerate(p["layers"]):
            stage = _StageContext(ctx, m.node)
            call = m.kernel.emit(stage, m.node, m.params, m.plan).strip()
            if stage.structs != 1 or not call.startswith("mr_") or not call.endswith(");") or call.count(";") != 1:
                raise AssertionError(f"{m.kernel.backend} {m.node.op} does not emit one call of its parameters")
            struct_type, struct = stage.struct
            cases.append(f"    case {index}: {{\n        {struct_type} q = {struct};\n        q.geo = *g;\n"
                         f"        return {call}\n    }}")
            ring = plan.ring_offsets[index] if index < len(plan.ring_offsets) else 0
            stages.append(f"{{&{struct}.geo, {ring}, {plan.chunks[index]}}}")
        ctx.declarations.append(
            f"static int {name}(int32_t stage, const mr_conv_geometry *g, const void *in, void *out, void *scratch)\n"
            "{\n    (void)scratch;\n    switch (stage) {\n" + "\n".join(cases) +
            "\n    default: return MR_ERR_SCRATCH;\n    }\n}")
        table = ctx._fresh("p")
        ctx.flash.parameter_structs += 1
        ctx.declarations.append(f"static const mr_rows_stage {table}[{len(stages)}] = {{{', '.join(stages)}}};")
        itemsize = ctx.graph.type_of(node.inputs[0]).dtype.itemsize
        last = p["layers"][-1].params["geometry"]
        cut_tables = []
        for size, parts in zip((last.out_h, last.out_w), plan.patches):
            if parts == 1:
                cut_tables.append("NULL")
                continue
            cut_tables.append(ctx._fresh("cuts"))
            ctx.flash.parameter_structs += 1
            ctx.declarations.append(f"static const int32_t {cut_tables[-1]}[{parts + 1}] = "
                                    f"{{{', '.join(map(str, rows.cuts(size, parts)))}}};")
        params = ctx.params("mr_rows_params", {"call": name, "stages": table, "count": len(stages),
                                               "itemsize": itemsize,
                                               "kernel_scratch_offset": plan.kernel_scratch_offset,
                                               "row_cuts": cut_tables[0], "row_patches": plan.patches[0],
                                               "col_cuts": cut_tables[1], "col_patches": plan.patches[1],
                                               "walk_offset": plan.walk_offset,
                                               "geometry_offset": plan.geometry_offset,
                                               "stage_in_offset": plan.stage_in_offset,
                                               "stage_out_offset": plan.stage_out_offset})
        return f"mr_rows({params}, {ctx.tensor(node.inputs[0])}, {ctx.tensor(node.outputs[0])}, {ctx.scratch()});"


class _StageContext:
    """The emit context a layer of the chain sees: its input and output are the cut rows mr_rows passes, its
    scratch the layers' kernel scratch, and its parameter struct a local copy with the cut geometry."""

    def __init__(self, ctx, node):
        self._ctx, self._node, self.struct, self.structs = ctx, node, None, 0

    def __getattr__(self, attr):
        return getattr(self._ctx, attr)

    def tensor(self, tensor: str) -> str:
        c_type = self._ctx.graph.type_of(tensor).dtype.c_type if tensor else ""
        if tensor and tensor == self._node.inputs[0]:
            return f"((const {c_type} *)in)"
        if tensor and tensor == self._node.outputs[0]:
            return f"(({c_type} *)out)"
        return self._ctx.tensor(tensor)

    def scratch(self) -> str:
        return "scratch"

    def params(self, struct_type: str, fields: dict) -> str:
        pointer = self._ctx.params(struct_type, fields)
        self.struct, self.structs = (struct_type, pointer.lstrip("&")), self.structs + 1
        return "&q"
