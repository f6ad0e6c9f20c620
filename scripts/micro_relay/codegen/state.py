"""The C of a model with state (plan/state.py): its storage, NAME_reset and the invoke that takes a state.

Only models with state tensors get any of this; the others' NAME.h and NAME.c are unchanged. The state is
one byte array of NAME_STATE_BYTES, aligned to NAME_STATE_ALIGN, that the arena never reuses. The model's
own is a static array: zero in .bss, so with all-zero initial values (LSTM, SVDF: TFLite Micro zeroes
variable tensors) it starts in its initial state with no code; when some initial value is not zero, the first
NAME_invoke or NAME_invoke_with resets it once (a flag beside it). NAME_reset_state(state) writes the initial
values into any state storage: zeros, then each nonzero state's initial bytes from a constant in flash. When the
arena is in a memory partition's zeroed section (codegen/names.py zeroed_partition_section), the state and its
flag are placed there too: a user-mode thread given the partition runs NAME_invoke and NAME_reset.
"""

from __future__ import annotations

from ..ir.graph import Graph
from ..plan.memory_plan import MemoryPlan
from ..plan.state import STATE_ALIGN
from .arrays import render_array
from .c_text import c_comment

STATE_BASE = "state_base"  # NAME_invoke_with_state's state as a uint8_t *: what state pointers add offsets to


def _nonzero(graph: Graph) -> list[str]:
    return [n for n in graph.states if graph.tensors[n].initial.any()]


def header_macros(name: str, plan: MemoryPlan) -> list[str]:
    macro = name.upper()
    return [
        "/* Bytes the model keeps between invokes (its state: recurrent memories, variables), apart from the",
        f" * arena; {name}_reset() restores their initial values. */",
        f"#define {macro}_STATE_BYTES {plan.state.state_bytes}",
        f"/* The alignment {name}_invoke_with_state needs of a state. */",
        f"#define {macro}_STATE_ALIGN {STATE_ALIGN}",
    ]


def header_functions(name: str) -> list[str]:
    macro = name.upper()
    return [
        "/*",
        f" * State. {name}_invoke and {name}_invoke_with(arena) run on the model's one static state, which starts",
        f" * in the initial state; {name}_reset() puts it back there. {name}_invoke_with_state(arena, state) runs",
        f" * on a caller's state: {macro}_STATE_BYTES bytes aligned to {macro}_STATE_ALIGN, set by",
        f" * {name}_reset_state(state) before its first run. Both return MR_ERR_ARENA for a NULL or misaligned",
        " * state. One model instance is one arena and one state; two runs on one state never at once.",
        " */",
        f"void {name}_reset(void);",
        f"int {name}_reset_state(void *state);",
        f"int {name}_invoke_with_state(void *arena, void *state);",
    ]


def _guard(var: str, align: int, status: str = "MR_ERR_ARENA") -> str:
    return f"    if ({var} == NULL || (uintptr_t){var} % {align}u != 0u) {{\n        return {status};\n    }}\n"


def storage_and_reset(name: str, graph: Graph, plan: MemoryPlan, section: str | None = None) -> str:
    """The static state (in `section`, a zeroed one, or .bss), the initial values that are not zero and
    NAME_reset_state / NAME_reset."""
    size = plan.state.state_bytes
    nonzero = _nonzero(graph)
    placed = f' MR_SECTION("{section}")' if section else ""
    lines = [f"static uint8_t {name}_state[{max(size, 1)}] MR_ALIGNED({STATE_ALIGN}){placed};"]
    copies = []
    for k, state in enumerate(nonzero, 1):
        t = graph.tensors[state]
        ident = f"{name}_initial{k}"
        lines.append(f"/* initial value of state '{c_comment(state)}': {t.type.dtype.value}{list(t.type.shape)} */\n"
                     f"static const {t.type.dtype.c_type} {ident}[{max(t.type.size, 1)}] = "
                     f"{render_array(t.initial, t.type.dtype)};")
        copies.append(f"    {{\n        const uint8_t *src = (const uint8_t *){ident};\n"
                      f"        for (i = 0; i < {t.type.nbytes}u; ++i) {{\n"
                      f"            {STATE_BASE}[{plan.state.offsets[state]}u + i] = src[i];\n        }}\n    }}\n")
    if nonzero:
        lines.append(f"static uint8_t {name}_state_ready{placed};  /* the static state was reset once */")
    lines.append(
        f"\nint {name}_reset_state(void *state)\n{{\n"
        f"    uint8_t *const {STATE_BASE} = (uint8_t *)state;\n    size_t i;\n" + _guard(STATE_BASE, STATE_ALIGN)
        + f"    for (i = 0; i < {size}u; ++i) {{\n        {STATE_BASE}[i] = 0u;\n    }}\n" + "".join(copies)
        + "    return MR_OK;\n}\n")
    ready = f"    {name}_state_ready = 1u;\n" if nonzero else ""
    lines.append(f"void {name}_reset(void)\n{{\n    (void){name}_reset_state({name}_state);\n{ready}}}\n")
    return "\n".join(lines)


def invoke_functions(name: str, graph: Graph, arena_base: str, arena_align: int, calls: list[str]) -> str:
    """NAME_invoke_with on the static state, and NAME_invoke_with_state running `calls`."""
    first = (f"    if ({name}_state_ready == 0u) {{\n        {name}_reset();\n    }}\n" if _nonzero(graph) else "")
    return (
        f"int {name}_invoke_with(void *arena)\n{{\n{first}"
        f"    return {name}_invoke_with_state(arena, {name}_state);\n}}\n"
        f"int {name}_invoke_with_state(void *arena, void *state)\n{{\n"
        f"    uint8_t *const {arena_base} = (uint8_t *)arena;\n"
        f"    uint8_t *const {STATE_BASE} = (uint8_t *)state;\n" + _guard(arena_base, arena_align)
        + _guard(STATE_BASE, STATE_ALIGN) + "\n".join(calls) + "\n    return 0;\n}\n")


def tensor_pointer(graph: Graph, plan: MemoryPlan, tensor: str) -> str:
    """A state's pointer, or that of a tensor stored in a state's storage (plan/state.py)."""
    t = graph.tensors[tensor]
    return f"(({t.type.dtype.c_type} *)({STATE_BASE} + {plan.state.offsets[t.stored_in or tensor]}))"
