"""The C a debug build (--debug-guards, plan/guards.py) adds to NAME.h and NAME.c: the canary table, the guard
calls around every layer, the failed-layer query and the intermediate tensors' accessors. A build without the
flag gets none of it: its text is what it was before debug builds existed."""

from __future__ import annotations

from ..ir.graph import Graph
from ..plan.guards import canaries, debug_tensors, layer_slot
from ..plan.memory_plan import MemoryPlan
from .c_text import c_comment

RUNTIME = "guard"  # crt/src/mr_guard.c, crt/include/micro_relay/guard.h


def header_lines(name: str, graph: Graph, plan: MemoryPlan) -> list[str]:
    macro = name.upper()
    tensors = debug_tensors(graph, plan.order)
    return [
        "/*",
        " * Debug build (--debug-guards): a canary after every tensor and scratch buffer, checked after each layer;",
        f" * {name}_invoke_with returns MR_ERR_GUARD when a layer wrote past its buffer. Every tensor keeps its bytes",
        " * for the whole run, so the intermediate values can be read afterwards.",
        " */",
        f"#define {macro}_DEBUG_GUARDS 1",
        f"#define {macro}_NUM_LAYERS {len(plan.order)}",
        f"#define {macro}_NUM_TENSORS {len(tensors)}",
        f"/* After a run that returned an error other than MR_ERR_ARENA: the step (0 .. {macro}_NUM_LAYERS - 1) of",
        " * the layer that failed; -1 after a run that succeeded. */",
        f"int32_t {name}_failed_layer_of(const void *arena);",
        f"int32_t {name}_failed_layer(void);",
        f"/* Tensor `index` (0 .. {macro}_NUM_TENSORS - 1: the arena tensors in the order the run writes them) after",
        " * a run; NULL for a NULL arena or a bad index. */",
        f"const void *{name}_tensor_of(const void *arena, int index);",
        f"const void *{name}_tensor(int index);",
        f"size_t {name}_tensor_size(int index);",
        "",
    ]


def canary_table(name: str, graph: Graph, plan: MemoryPlan, scratch: dict[int, int]) -> str:
    rows = ",\n".join(f"    {{{c.offset}u, {c.length}u, {c.first}, {c.last}}} /* {c_comment(c.buffer)} */"
                      for c in canaries(graph, plan, scratch))
    rows = rows or "    {0u, 0u, -1, -2} /* no buffer: never live */"
    return (f"static const mr_canary {name}_canaries[] = {{\n{rows}\n}};\n"
            f"#define {_count(name)} (uint32_t)(sizeof {name}_canaries / sizeof {name}_canaries[0])\n")


def _count(name: str) -> str:
    return f"{name.upper()}_NUM_CANARIES"


def before(name: str, plan: MemoryPlan, base: str, step: int) -> str:
    """Name the layer about to run and fill the canaries of the buffers it starts."""
    return f"    MR_TRY(mr_guard_begin({base}, {name}_canaries, {_count(name)}, {layer_slot(plan)}u, {step}));"


def after(name: str, base: str, step: int) -> str:
    return f"    MR_TRY(mr_guard_check({base}, {name}_canaries, {_count(name)}, {step}));"


def functions(name: str, graph: Graph, plan: MemoryPlan) -> str:
    """NAME_failed_layer_of, NAME_failed_layer, NAME_tensor_of, NAME_tensor and NAME_tensor_size."""
    tensors = [t for _, t in debug_tensors(graph, plan.order)]
    pointers = "".join(f"    case {k}: return (const uint8_t *)arena + {plan.tensor_offset(t)};\n"
                       for k, t in enumerate(tensors))
    sizes = "".join(f"    case {k}: return {graph.type_of(t).nbytes};\n" for k, t in enumerate(tensors))
    return (
        f"int32_t {name}_failed_layer_of(const void *arena)\n{{\n    int32_t step = -1;\n"
        f"    if (arena != NULL) {{\n        memcpy(&step, (const uint8_t *)arena + {layer_slot(plan)}, sizeof step);\n"
        f"    }}\n    return step;\n}}\n\n"
        f"int32_t {name}_failed_layer(void)\n{{\n    return {name}_failed_layer_of({name}_arena_base);\n}}\n\n"
        f"const void *{name}_tensor_of(const void *arena, int index)\n{{\n"
        f"    if (arena == NULL) {{\n        return NULL;\n    }}\n    switch (index) {{\n{pointers}"
        f"    default: return NULL;\n    }}\n}}\n\n"
        f"const void *{name}_tensor(int index)\n{{\n    return {name}_tensor_of({name}_arena_base, index);\n}}\n\n"
        f"size_t {name}_tensor_size(int index)\n{{\n    switch (index) {{\n{sizes}    default: return 0;\n    }}\n}}\n"
    )
