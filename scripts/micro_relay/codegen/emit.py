"""Emit a planned graph as C99: NAME.h (the stable API), NAME.c (constants, parameters, invoke) and the
runtime sources its kernels live in.

The emitted text depends only on the graph and the plan: constants and parameter structs are numbered in
emission order, nothing reads the clock, the environment or hash order, so compiling twice gives the same
bytes. Weights are `static const` (flash) and aligned. NAME_invoke_with(arena) runs the model on the caller's
arena (NAME_ARENA_SIZE bytes, NAME_ARENA_ALIGN aligned), so one model can run in several threads, each on its
own; NAME_invoke() runs it on the model's one static aligned byte array, unless the application provides its
own by defining NAME_EXTERNAL_ARENA to the name of a byte array of at least NAME_ARENA_SIZE bytes (for example
placed in a linker section of its choice), or asks for a section with the compiler's `arena_section` option.
Every runtime call's status is checked (MR_TRY): invoke returns the first nonzero one. NAME.c stops with
#error when built against a runtime of another C ABI (crt.h's MR_CRT_ABI_VERSION).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from .. import __version__
from ..ir.graph import Graph
from ..ir.types import DType
from ..kernels.cmsis_nn._adapters import HEADER as ADAPTER_HEADER
from ..lower import Lowered
from ..plan.memory_plan import MemoryPlan
from .arrays import render_array
from .c_text import c_comment
from .constants import DERIVED_PREFIX, PARAMETER_PREFIX, TENSOR_PREFIX, FlashConstants, bias_constants
from .crt import crt_abi_version
from .names import zeroed_partition_section
from . import guards as guards_c
from . import arena_group as group_c
from . import integrity
from . import state as state_c

WEIGHT_ALIGN = 16
ARENA_ALIGN = 16
ARENA_BASE = "base"  # NAME_invoke_with's arena as a uint8_t *: what tensor and scratch pointers add offsets to

_DTYPE_MACRO = {
    DType.FLOAT32: "MR_FLOAT32",
    DType.INT8: "MR_INT8",
    DType.UINT8: "MR_UINT8",
    DType.INT16: "MR_INT16",
    DType.INT32: "MR_INT32",
    DType.INT64: "MR_INT64",
    DType.BOOL: "MR_BOOL",
    DType.UINT32: "MR_UINT32",
    DType.UINT64: "MR_UINT64",
}


@dataclass
class EmitContext:
    """What an op's `emit` uses to name tensors and to declare constants and parameter structs."""

    name: str
    graph: Graph
    plan: MemoryPlan
    node_index: int = 0
    declarations: list[str] = field(default_factory=list)
    constant_names: dict[str, str] = field(default_factory=dict)
    counter: int = 0
    flash: FlashConstants = field(default_factory=FlashConstants)
    biases: frozenset[str] | None = None  # the constants read as a bias (constants.bias_constants), found once
    weights_section: str | None = None  # the linker section of the constant arrays (None: the compiler's .rodata)

    def _fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{self.name}_{prefix}{self.counter}"

    def tensor(self, tensor: str) -> str:
        """C expression for a tensor's data pointer; NULL for an absent optional input."""
        if not tensor:
            return "NULL"
        t = self.graph.tensors[tensor]
        if t.is_state or t.stored_in:
            return state_c.tensor_pointer(self.graph, self.plan, tensor)
        if t.is_constant:
            if tensor not in self.constant_names:
                if self.biases is None:
                    self.biases = bias_constants(self.graph)
                bias = tensor in self.biases
                ident = self._fresh(TENSOR_PREFIX["biases" if bias else "weights"])
                self.constant_names[tensor] = ident
                self.flash.add("biases" if bias else "weights", ident, t.data, t.type.dtype)
                self.declarations.append("".join((
                    f"/* {c_comment(tensor)}: {t.type.dtype.value}{list(t.type.shape)} */\n"
                    f"static const {t.type.dtype.c_type} {ident}[{max(t.type.size, 1)}] MR_ALIGNED({WEIGHT_ALIGN})"
                    f"{self._section()} = ",
                    render_array(t.data, t.type.dtype), ";")))
            return self.constant_names[tensor]
        return f"(({t.type.dtype.c_type} *)({ARENA_BASE} + {self.plan.tensor_offset(tensor)}))"

    def scratch(self) -> str:
        offset = self.plan.scratch_offset(self.node_index)
        if offset is None:
            raise AssertionError("kernel asked for scratch its op did not plan")
        return f"((void *)({ARENA_BASE} + {offset}))"

    def const_array(self, values, c_type: str, part: str = "tables") -> str:
        """Declare a constant array the compiler derived; `part` (constants.DERIVED_PREFIX) says what it holds."""
        values = np.asarray(values)
        dtype = {"int32_t": DType.INT32, "int16_t": DType.INT16, "int8_t": DType.INT8, "float": DType.FLOAT32,
                 "int64_t": DType.INT64, "uint8_t": DType.UINT8}[c_type]
        ident = self._fresh(DERIVED_PREFIX[part])
        self.flash.add(part, ident, values, dtype)
        self.declarations.append(
            f"static const {c_type} {ident}[{max(values.size, 1)}]{self._section()} = {render_array(values, dtype)};"
        )
        return ident

    def _section(self) -> str:
        return f' MR_SECTION("{self.weights_section}")' if self.weights_section else ""

    def params(self, struct_type: str, fields: dict) -> str:
        """Declare a constant parameter struct; returns a pointer expression to it."""
        ident = self._fresh(PARAMETER_PREFIX)
        self.flash.parameter_structs += 1
        body = ",\n".join(f"    .{key} = {value}" for key, value in fields.items())
        self.declarations.append(f"static const {struct_type} {ident} = {{\n{body}\n}};")
        return f"&{ident}"


def _io_macros(graph: Graph, macro: str, kind: str, names) -> list[str]:
    lines = []
    for index, name in enumerate(names):
        t = graph.type_of(name)
        p = f"{macro}_{kind}{index}"
        lines.append(f"/* {kind.lower()} {index}: '{c_comment(name)}' */")
        lines.append(f"#define {p}_DTYPE {_DTYPE_MACRO[t.dtype]}")
        lines.append(f"#define {p}_TYPE {t.dtype.c_type}")
        lines.append(f"#define {p}_RANK {t.rank}")
        lines.append(f"#define {p}_SHAPE {{{', '.join(str(d) for d in t.shape)}}}")
        for axis, dim in enumerate(t.shape):
            lines.append(f"#define {p}_DIM{axis} {dim}")
        lines.append(f"#define {p}_SIZE {t.size}")
        lines.append(f"#define {p}_BYTES {t.nbytes}")
        if t.quant is not None:
            lines.append(f"#define {p}_SCALE {np.format_float_scientific(np.float32(t.quant.scale), unique=True, trim='0')}f")
            lines.append(f"#define {p}_ZERO_POINT {t.quant.zero_point}")
        lines.append("")
    return lines


def emit_header(name: str, graph: Graph, plan: MemoryPlan, source: str, flash: FlashConstants,
                arena_group: str | None = None) -> str:
    macro = name.upper()
    lines = [
        f"/* Generated by micro-relay {__version__} from {c_comment(source)}. Do not edit. */",
        f"#ifndef {macro}_H_",
        f"#define {macro}_H_",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        '#include "micro_relay/crt.h"',
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        f"/* Exact RAM the model needs for activations and scratch (one arena, planned at compile time). */",
        f"#define {macro}_ARENA_SIZE {plan.arena_bytes}",
        f"/* The alignment {name}_invoke_with needs of an arena. */",
        f"#define {macro}_ARENA_ALIGN {ARENA_ALIGN}",
    ]
    if plan.state:
        lines += state_c.header_macros(name, plan)
    lines += [
        f"#define {macro}_NUM_INPUTS {len(graph.inputs)}",
        f"#define {macro}_NUM_OUTPUTS {len(graph.outputs)}",
        "",
    ]
    lines += _io_macros(graph, macro, "INPUT", graph.inputs)
    lines += _io_macros(graph, macro, "OUTPUT", graph.outputs)
    lines += [
        "/*",
        f" * Running the model. {name}_invoke_with(arena) runs it once on the caller's arena: {macro}_ARENA_SIZE",
        f" * bytes aligned to {macro}_ARENA_ALIGN, whose inputs were filled through {name}_input_of(arena, i); the",
        f" * outputs are then at {name}_output_of(arena, i) until the arena's next run. Inputs may be overwritten:",
        " * refill them before each run. It returns MR_OK (0), else the status of the first layer that failed,",
        " * where it stopped (MR_ERR_* in micro_relay/crt.h), or MR_ERR_ARENA for a NULL or misaligned arena.",
        *((" * Reentrant: the weights and parameters are read-only and the kernels keep no static state, so several",
           f" * threads may run {name}_invoke_with at once, each on its own arena (never two runs on one arena).")
          if not plan.state else
          (f" * This model keeps a state between runs, which {name}_invoke_with uses the model's one copy of: several",
           f" * threads run it at once with {name}_invoke_with_state, each on its own arena and state (below).")),
        f" * {name}_invoke, {name}_input and {name}_output are the same on the model's one static arena (or",
        f" * {macro}_EXTERNAL_ARENA): one run at a time. micro-relay's docs/runtime.md says more.",
        " */",
        f"int {name}_invoke(void);",
        f"int {name}_invoke_with(void *arena);",
        f"/* Input buffer `index` (inside the arena): fill it before {name}_invoke(). NULL for a bad index. */",
        f"void *{name}_input(int index);",
        f"/* Output buffer `index`: valid after {name}_invoke() until the next call. NULL for a bad index. */",
        f"const void *{name}_output(int index);",
        f"/* The same buffers in `arena` (NULL for a NULL arena), for {name}_invoke_with(arena). */",
        f"void *{name}_input_of(void *arena, int index);",
        f"const void *{name}_output_of(const void *arena, int index);",
        f"size_t {name}_input_size(int index);",
        f"size_t {name}_output_size(int index);",
        "",
    ]
    lines += integrity.header_lines(name, flash.crc)
    if arena_group:
        lines += group_c.member_header_lines(name, arena_group)
    if plan.state:
        lines += state_c.header_functions(name) + [""]
    if plan.guards:
        lines += guards_c.header_lines(name, graph, plan)
    lines += [
        "#ifdef __cplusplus",
        "}",
        "#endif",
        "",
        f"#endif /* {macro}_H_ */",
        "",
    ]
    return "\n".join(lines)


def _accessor(name: str, kind: str, ret: str, cases: list[str], default: str, arena: str = "") -> str:
    """`ret NAME_kind(int index)`, or with `arena` (its parameter's type) `ret NAME_kind(arena, int index)`, NULL
    for a NULL arena."""
    body = "".join(f"    case {i}: return {c};\n" for i, c in enumerate(cases))
    guard = f"    if (arena == NULL) {{\n        return {default};\n    }}\n" if arena else ""
    params = f"{arena}arena, int index" if arena else "int index"
    head = f"{ret}{'' if ret.endswith('*') else ' '}{name}_{kind}({params})"
    return f"{head}\n{{\n{guard}    switch (index) {{\n{body}    default: return {default};\n    }}\n}}\n"


_STATEMENT_CALL = re.compile(r"(?:^|(?<=[;{}]))\s*(mr_[A-Za-z0-9_]*)\(")


def _try_calls(statement: str) -> str:
    """`statement` with every runtime call that stands as a statement, `mr_f(...);`, made MR_TRY(mr_f(...));
    (crt.h), so that NAME_invoke_with returns the first status that is not MR_OK; calls within expressions (an
    op's own check of a status) stay as they are."""
    pieces, pos = [], 0
    while (found := _STATEMENT_CALL.search(statement, pos)) is not None:
        depth, end = 0, found.end(1)
        for end in range(found.end(1), len(statement)):  # the call's closing parenthesis
            depth += {"(": 1, ")": -1}.get(statement[end], 0)
            if depth == 0:
                break
        if statement.startswith(";", end + 1):
            pieces += [statement[pos:found.start(1)], f"MR_TRY({statement[found.start(1):end + 1]});"]
        else:
            pieces.append(statement[pos:end + 2])
        pos = end + 2
    return "".join(pieces) + statement[pos:]


def _abi_check(name: str) -> str:
    """#error naming both versions when NAME.c is built against a runtime of another C ABI (a --no-runtime build
    against a runtime built separately). Version 1, from before versions, defines no MR_CRT_ABI_VERSION; older
    ones are named one by one; a later one, which this compiler cannot know, by a #pragma message just before."""
    version, text = crt_abi_version(), f"{name.upper()}_ABI_TEXT"
    said = f'#error "micro_relay: {name}.c needs C runtime ABI version {version}; micro_relay/crt.h is'
    lines = ["#if !defined(MR_CRT_ABI_VERSION)", f'{said} version 1 (it defines no MR_CRT_ABI_VERSION)"']
    for older in range(2, version):
        lines += [f"#elif MR_CRT_ABI_VERSION == {older}", f'{said} version {older}"']
    lines += [f"#elif MR_CRT_ABI_VERSION != {version}", f"#define {text}_(v) #v", f"#define {text}(v) {text}_(v)",
              f'#pragma message("micro_relay/crt.h: MR_CRT_ABI_VERSION " {text}(MR_CRT_ABI_VERSION))',
              f'{said} another version (MR_CRT_ABI_VERSION, in the message above)"', "#endif"]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class EmittedModel:
    files: dict[str, str]  # NAME.h and NAME.c
    kernels: tuple[str, ...]  # runtime sources crt/src/mr_<kernel>.c the model calls, in first-call order
    adapters: tuple[str, ...]  # CMSIS-NN adapters crt/cmsis_nn/mr_cmsis_<adapter>.c it calls, sorted
    flash: FlashConstants = field(default_factory=FlashConstants)  # the constants NAME.c puts in flash


def emit_source(name: str, lowered: Lowered, plan: MemoryPlan, source: str, arena_section: str | None = None,
                weights_section: str | None = None,
                arena_group: str | None = None) -> tuple[str, list[str], list[str], FlashConstants]:
    """The model's .c text, the runtime kernel names it calls, the CMSIS-NN adapters it calls and the constants
    it declares. With an arena group the model has no arena of its own (codegen/arena_group.py)."""
    graph = lowered.graph
    macro = name.upper()
    ctx = EmitContext(name, graph, plan, weights_section=weights_section)
    ctx.flash.section = weights_section
    calls: list[str] = []
    kernels: list[str] = []
    adapters: set[str] = set()
    headers: set[str] = set()
    for step, node_index in enumerate(plan.order):
        low = lowered.nodes[node_index]
        node = low.node
        ctx.node_index = node_index
        written = c_comment(node.outputs[0]) if node.outputs else f"state {c_comment(node.inputs[0])}"
        where = f"/* {step}: {node.op}{' ' + c_comment(node.name) if node.name else ''} -> {written} */"
        call = low.kernel.emit(ctx, node, low.params, low.plan)
        if not plan.guards:
            calls.append(f"    {where}\n    {_try_calls(call)}" if call else f"    {where}")
        else:  # the layer named and its new canaries filled before it, every live canary checked after it
            calls.append("\n".join((f"    {where}", guards_c.before(name, plan, ARENA_BASE, step),
                                    *((f"    {_try_calls(call)}",) if call else ()),
                                    guards_c.after(name, ARENA_BASE, step))))
        headers.update(low.plan.sources[:1])
        adapters.update(low.plan.adapters)
        for k in low.plan.sources:
            if k not in kernels:
                kernels.append(k)
    if plan.guards:
        calls.append(guards_c.before(name, plan, ARENA_BASE, -1))
        headers.add(guards_c.RUNTIME)
        kernels.append(guards_c.RUNTIME)
    headers.add(integrity.RUNTIME)
    kernels.append(integrity.RUNTIME)
    includes = "".join(f'#include "micro_relay/{k}.h"\n' for k in sorted(headers))
    if adapters:
        includes += f'#include "{ADAPTER_HEADER}"\n'  # crt/cmsis_nn/
    section = f' MR_SECTION("{arena_section}")' if arena_section else ""
    arena = group_c.member_arena(name, arena_group) if arena_group else (
        f"#if defined({macro}_EXTERNAL_ARENA)\n"
        f"extern uint8_t {macro}_EXTERNAL_ARENA[];\n"
        f"#define {name}_arena_base {macro}_EXTERNAL_ARENA\n"
        f"#else\n"
        f"static uint8_t {name}_arena[{max(plan.arena_bytes, 1)}] MR_ALIGNED({ARENA_ALIGN}){section};\n"
        f"#define {name}_arena_base {name}_arena\n"
        f"#endif\n"
    )

    def buffer(tensor: str, const: str) -> str:  # the tensor in NAME_input_of's / NAME_output_of's arena
        if graph.tensors[tensor].is_constant:
            return ctx.tensor(tensor)
        return f"({const}uint8_t *)arena + {plan.tensor_offset(tensor)}"

    inputs = [buffer(n, "") for n in graph.inputs]
    outputs = [buffer(n, "const ") for n in graph.outputs]
    head = [
        f"/* Generated by micro-relay {__version__} from {c_comment(source)}. Do not edit. */",
        f'#include "{name}.h"',
        "",
        "#include <float.h>",
        "#include <math.h>",
        *(("#include <string.h>",) if plan.guards else ()),
        "",
        includes,
        _abi_check(name),
        arena,
    ]
    if plan.guards:
        head.append(guards_c.canary_table(name, graph, plan, lowered.scratch()))
    if plan.state:
        head.append(state_c.storage_and_reset(name, graph, plan, zeroed_partition_section(arena_section)))
        invoke = state_c.invoke_functions(name, graph, ARENA_BASE, ARENA_ALIGN, calls)
    else:
        invoke = (f"int {name}_invoke_with(void *arena)\n{{\n"
                  f"    uint8_t *const {ARENA_BASE} = (uint8_t *)arena;\n"
                  f"    if ({ARENA_BASE} == NULL || (uintptr_t){ARENA_BASE} % {ARENA_ALIGN}u != 0u) {{\n"
                  f"        return MR_ERR_ARENA;\n    }}\n" + "\n".join(calls) + "\n    return 0;\n}\n")
    tail = [
        "",
        (group_c.member_invoke(name, arena_group) if arena_group else
         f"int {name}_invoke(void) {{ return {name}_invoke_with({name}_arena_base); }}\n") + invoke,
        _accessor(name, "input_of", "void *", inputs, "NULL", "void *"),
        _accessor(name, "output_of", "const void *", outputs, "NULL", "const void *"),
        f"void *{name}_input(int index)\n{{\n    return {name}_input_of({name}_arena_base, index);\n}}\n",
        f"const void *{name}_output(int index)\n{{\n    return {name}_output_of({name}_arena_base, index);\n}}\n",
        _accessor(name, "input_size", "size_t", [str(graph.type_of(n).nbytes) for n in graph.inputs], "0"),
        _accessor(name, "output_size", "size_t", [str(graph.type_of(n).nbytes) for n in graph.outputs], "0"),
    ]
    tail.append(integrity.verify_function(name, ctx.flash.crc))
    if plan.guards:
        tail.append(guards_c.functions(name, graph, plan))
    # "\n".join(head + ["\n\n".join(declarations)] + tail) in one join: the declarations hold the weights'
    # text, which is then copied once, not once per join
    pieces = ["\n".join(head), "\n"]
    for index, declaration in enumerate(ctx.declarations):
        pieces += ["\n\n", declaration] if index else [declaration]
    pieces += ["\n", "\n".join(tail)]
    ctx.declarations.clear()
    return "".join(pieces), kernels, sorted(adapters), ctx.flash


def emit_model(name: str, lowered: Lowered, plan: MemoryPlan, source: str, arena_section: str | None = None,
               weights_section: str | None = None, arena_group: str | None = None) -> EmittedModel:
    """NAME.h and NAME.c of a lowered, planned graph, with the runtime sources and adapters they call.
    weights_section: the linker section of the weights, biases, requantization arrays and tables (codegen/
    constants.py), e.g. one a linker script places in external flash; the parameter structs stay in .rodata."""
    source_text, kernels, adapters, flash = emit_source(name, lowered, plan, source, arena_section, weights_section,
                                                        arena_group)
    files = {f"{name}.h": emit_header(name, lowered.graph, plan, source, flash, arena_group),
             f"{name}.c": source_text}
    return EmittedModel(files, tuple(kernels), tuple(adapters), flash)
